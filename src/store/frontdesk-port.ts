/**
 * What the front desk keeps beside the protocol's records: the private note the business writes
 * about a client, and the reach into every table that holds a buyer's personal data as JSON, so
 * that a buyer's data can be exported and erased wherever it is (spec 10.1.3).
 */

/** The business's private note about one client, keyed by the client's email or phone digits. */
export interface ClientNoteRow {
  client_key: string;
  note: string;
  updated_ms: number;
  updated_by: string;
}

/** One row of a table holding personal data as JSON text: its key and the text. */
export interface PersonalTextRow {
  key: string;
  text: string;
}

export interface FrontDeskRepo {
  /** The names of the tables that hold personal data as JSON text (PERSONAL_TEXT_TABLES), in export order. */
  readonly personalTables: readonly string[];
  clientNote(clientKey: string): Promise<ClientNoteRow | null>;
  putClientNote(row: ClientNoteRow): Promise<void>;
  /** True when there was a note. */
  deleteClientNote(clientKey: string): Promise<boolean>;
  /**
   * Rows of one personal-data table (by its name in PERSONAL_TEXT_TABLES) whose JSON text contains
   * any of the needles, case-insensitively, by key, at most `limit` of them after the key `afterKey`.
   */
  mentioning(table: string, needles: readonly string[], limit: number, afterKey?: string): Promise<PersonalTextRow[]>;
  /** Replace one row's JSON text. */
  rewrite(table: string, key: string, text: string): Promise<void>;
  /** Bookings that ended in [fromMs, beforeMs), oldest end first: ids and ends (retention). */
  bookingsEnded(fromMs: number, beforeMs: number, limit: number): Promise<Array<{ id: string; end_ms: number }>>;
  /**
   * End a buyer account: the account, its booking links and every authorization server record
   * that belongs to it (sessions, grants, tokens) are deleted. Returns the rows deleted.
   */
  deleteAccount(accountId: string): Promise<number>;
}
