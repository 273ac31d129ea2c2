/**
 * What the OAuth authorization server and buyer accounts keep in the store: the library's records
 * (grants, codes, tokens, sessions, registered clients, interactions) as JSON by model and id, and
 * the buyer accounts with the bookings made through them. Several processes share one database, so
 * a code consumed or a token revoked by one process is seen by every other.
 */

/** One record of the authorization server library, by model ('AccessToken', 'Grant', ...) and id. */
export interface OAuthRecord {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  /** The buyer account the record belongs to (grants and tokens), for the account page. */
  accountId: string | null;
  /** When the record stops counting (null: never); a record at its expiry instant is gone. */
  expiresMs: number | null;
  /** When a one-time record (an authorization code) was used. */
  consumedMs: number | null;
}

export interface OAuthRepo {
  /** Insert or replace a record; the one-time mark (consumedMs) survives a replace. */
  upsert(r: Omit<OAuthRecord, 'consumedMs'>): Promise<void>;
  /** The unexpired record, or null. */
  find(model: string, id: string, nowMs: number): Promise<OAuthRecord | null>;
  findByUid(model: string, uid: string, nowMs: number): Promise<OAuthRecord | null>;
  findByUserCode(model: string, userCode: string, nowMs: number): Promise<OAuthRecord | null>;
  /** Mark a record used; false when it was already used (a replay). */
  consume(model: string, id: string, nowMs: number): Promise<boolean>;
  destroy(model: string, id: string): Promise<void>;
  /** Forget every record of a grant (codes, access and refresh tokens, the grant itself). */
  revokeByGrantId(grantId: string): Promise<number>;
  /** Unexpired records of one model that belong to an account, newest first. */
  byAccount(model: string, accountId: string, nowMs: number): Promise<OAuthRecord[]>;
  /** Drop expired records. */
  purge(nowMs: number): Promise<number>;
}

/** A buyer's account at this business. The password is kept only as a scrypt hash. */
export interface BuyerAccount {
  id: string;
  /** Lower-cased, trimmed. */
  email: string;
  password_hash: string;
  name: string;
  phone: string | null;
  created_ms: number;
}

export interface AccountRepo {
  /** False (and nothing written) when an account with that email exists. */
  create(a: BuyerAccount): Promise<boolean>;
  byEmail(email: string): Promise<BuyerAccount | null>;
  byId(id: string): Promise<BuyerAccount | null>;
  /** Replace the account's password hash (a completed password reset). False when no such account. */
  setPassword(id: string, passwordHash: string): Promise<boolean>;
  /** Record that a booking was made for (and belongs to) an account. Idempotent. */
  linkBooking(accountId: string, bookingId: string, createdMs: number): Promise<void>;
  /** Whether a booking belongs to an account. */
  owns(accountId: string, bookingId: string): Promise<boolean>;
  /** The account's booking ids, newest first; `before` (created_ms, booking id) pages on. */
  bookings(
    accountId: string,
    limit: number,
    before?: { createdMs: number; bookingId: string },
  ): Promise<Array<{ bookingId: string; createdMs: number }>>;
}
