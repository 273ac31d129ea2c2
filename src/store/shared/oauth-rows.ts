/** OAuth records and buyer accounts as both engines read them (BIGINT columns arrive as strings from PostgreSQL). */
import type { BuyerAccount, OAuthRecord } from '../oauth-port.js';

export interface OAuthRow {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  account_id: string | null;
  expires_ms: number | string | null;
  consumed_ms: number | string | null;
}

const instant = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const toOAuthRecord = (r: OAuthRow): OAuthRecord => ({
  model: r.model,
  id: r.id,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
  grantId: r.grant_id,
  uid: r.uid,
  userCode: r.user_code,
  accountId: r.account_id,
  expiresMs: instant(r.expires_ms),
  consumedMs: instant(r.consumed_ms),
});

export type BuyerAccountRow = Omit<BuyerAccount, 'created_ms'> & { created_ms: number | string };

export const toBuyerAccount = (r: BuyerAccountRow): BuyerAccount => ({ ...r, created_ms: Number(r.created_ms) });

/** A buyer's booking link, newest first in the account's list. */
export const toBuyerBooking = (r: { booking_id: string; created_ms: number | string }) => ({
  bookingId: r.booking_id,
  createdMs: Number(r.created_ms),
});
