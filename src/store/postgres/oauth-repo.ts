/** The OAuth records and buyer accounts on PostgreSQL (tables from the migration that adds them). */
import type pg from 'pg';
import type { AccountRepo, OAuthRepo } from '../oauth-port.js';
import { toBuyerAccount as toAccount, toBuyerBooking, toOAuthRecord as toRecord } from '../shared/oauth-rows.js';

type Query = <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

const LIVE = '(expires_ms IS NULL OR expires_ms > $3)';

export function postgresOAuthRepos(q: Query): { oauth: OAuthRepo; accounts: AccountRepo } {
  const first = async (text: string, values: unknown[]) => {
    const r = await q(text, values);
    return r.rows.length > 0 ? toRecord(r.rows[0]) : null;
  };
  const oauth: OAuthRepo = {
    async upsert(r) {
      await q(
        `INSERT INTO oauth_records (model, id, payload, grant_id, uid, user_code, account_id, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
         user_code = EXCLUDED.user_code, account_id = EXCLUDED.account_id, expires_ms = EXCLUDED.expires_ms`,
        [r.model, r.id, JSON.stringify(r.payload), r.grantId, r.uid, r.userCode, r.accountId, r.expiresMs],
      );
    },
    find: (model, id, nowMs) =>
      first(`SELECT * FROM oauth_records WHERE model = $1 AND id = $2 AND ${LIVE}`, [model, id, nowMs]),
    findByUid: (model, uid, nowMs) =>
      first(`SELECT * FROM oauth_records WHERE model = $1 AND uid = $2 AND ${LIVE}`, [model, uid, nowMs]),
    findByUserCode: (model, code, nowMs) =>
      first(`SELECT * FROM oauth_records WHERE model = $1 AND user_code = $2 AND ${LIVE}`, [model, code, nowMs]),
    async consume(model, id, nowMs) {
      // Two processes redeeming one code: the row update is atomic, so exactly one sees a change.
      const r = await q(
        'UPDATE oauth_records SET consumed_ms = $1 WHERE model = $2 AND id = $3 AND consumed_ms IS NULL',
        [nowMs, model, id],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async destroy(model, id) {
      await q('DELETE FROM oauth_records WHERE model = $1 AND id = $2', [model, id]);
    },
    async revokeByGrantId(grantId) {
      const r = await q(`DELETE FROM oauth_records WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)`, [grantId]);
      return r.rowCount ?? 0;
    },
    async byAccount(model, accountId, nowMs) {
      const r = await q(
        `SELECT * FROM oauth_records WHERE model = $1 AND account_id = $2 AND ${LIVE} ORDER BY seq DESC`,
        [model, accountId, nowMs],
      );
      return r.rows.map(toRecord);
    },
    async purge(nowMs) {
      const r = await q('DELETE FROM oauth_records WHERE expires_ms IS NOT NULL AND expires_ms <= $1', [nowMs]);
      return r.rowCount ?? 0;
    },
  };
  const accounts: AccountRepo = {
    async create(a) {
      const r = await q(
        'INSERT INTO buyer_accounts (id, email, password_hash, name, phone, created_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING',
        [a.id, a.email, a.password_hash, a.name, a.phone, a.created_ms],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async byEmail(email) {
      const r = await q('SELECT * FROM buyer_accounts WHERE email = $1', [email]);
      return r.rows.length > 0 ? toAccount(r.rows[0]) : null;
    },
    async byId(id) {
      const r = await q('SELECT * FROM buyer_accounts WHERE id = $1', [id]);
      return r.rows.length > 0 ? toAccount(r.rows[0]) : null;
    },
    async setPassword(id, passwordHash) {
      const r = await q('UPDATE buyer_accounts SET password_hash = $1 WHERE id = $2', [passwordHash, id]);
      return (r.rowCount ?? 0) > 0;
    },
    async linkBooking(accountId, bookingId, createdMs) {
      await q(
        'INSERT INTO buyer_bookings (account_id, booking_id, created_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [accountId, bookingId, createdMs],
      );
    },
    async owns(accountId, bookingId) {
      const r = await q('SELECT 1 FROM buyer_bookings WHERE account_id = $1 AND booking_id = $2', [
        accountId,
        bookingId,
      ]);
      return r.rows.length > 0;
    },
    async bookings(accountId, limit, before) {
      const r = before
        ? await q(
            `SELECT booking_id, created_ms FROM buyer_bookings WHERE account_id = $1 AND (created_ms, booking_id) < ($2, $3)
             ORDER BY created_ms DESC, booking_id DESC LIMIT $4`,
            [accountId, before.createdMs, before.bookingId, limit],
          )
        : await q(
            'SELECT booking_id, created_ms FROM buyer_bookings WHERE account_id = $1 ORDER BY created_ms DESC, booking_id DESC LIMIT $2',
            [accountId, limit],
          );
      return r.rows.map(toBuyerBooking);
    },
  };
  return { oauth, accounts };
}
