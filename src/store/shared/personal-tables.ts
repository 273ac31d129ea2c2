/**
 * The tables that hold a buyer's personal data inside JSON text, and where: export and erase go
 * through every one (src/operations/admin/personal-data.ts). A new table that keeps a buyer's data
 * (an outbox of mail, say) joins export and erasure by one line here.
 */
export interface PersonalTextTable {
  /** The name export answers under. */
  name: string;
  table: string;
  /** The column that identifies a row (text or integer). */
  key: string;
  /** The column holding JSON text. */
  column: string;
  /** The key is an integer (pages on by number). */
  numericKey?: true;
}

export const PERSONAL_TEXT_TABLES: readonly PersonalTextTable[] = [
  { name: 'bookings', table: 'bookings', key: 'id', column: 'data' },
  { name: 'waitlist_entries', table: 'waitlist_entries', key: 'id', column: 'data' },
  { name: 'holds', table: 'holds', key: 'id', column: 'data' },
  { name: 'outbox_events', table: 'outbox', key: 'seq', column: 'payload', numericKey: true },
  { name: 'webhook_deliveries', table: 'webhook_deliveries', key: 'id', column: 'body', numericKey: true },
  { name: 'stored_responses', table: 'idempotency', key: 'scope', column: 'body' },
  { name: 'payment_jobs', table: 'payment_jobs', key: 'id', column: 'payload' },
];

export function personalTable(name: string): PersonalTextTable {
  const t = PERSONAL_TEXT_TABLES.find((x) => x.name === name);
  if (!t) throw new Error(`no personal-data table ${name}`);
  return t;
}

/** The client notes table, the same on both engines. */
export const CLIENT_NOTES_DDL = `
  CREATE TABLE client_notes (
    client_key TEXT PRIMARY KEY,
    note TEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    updated_by TEXT NOT NULL
  );
  ALTER TABLE bookings ADD COLUMN end_ms BIGINT;
  CREATE INDEX bookings_by_end ON bookings (end_ms);
`;
