/** The OAuth records and buyer accounts on SQLite (tables from the migration that adds them). */
import type Database from 'better-sqlite3';
import type { AccountRepo, OAuthRepo } from '../oauth-port.js';
import {
  type BuyerAccountRow,
  type OAuthRow as Row,
  toBuyerAccount,
  toBuyerBooking,
  toOAuthRecord as toRecord,
} from '../shared/oauth-rows.js';

const LIVE = '(expires_ms IS NULL OR expires_ms > ?)';

export function sqliteOAuthRepos(db: Database.Database): { oauth: OAuthRepo; accounts: AccountRepo } {
  const q = {
    upsert: db.prepare(
      `INSERT INTO oauth_records (model, id, payload, grant_id, uid, user_code, account_id, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
       user_code = excluded.user_code, account_id = excluded.account_id, expires_ms = excluded.expires_ms`,
    ),
    find: db.prepare(`SELECT * FROM oauth_records WHERE model = ? AND id = ? AND ${LIVE}`),
    byUid: db.prepare(`SELECT * FROM oauth_records WHERE model = ? AND uid = ? AND ${LIVE}`),
    byUserCode: db.prepare(`SELECT * FROM oauth_records WHERE model = ? AND user_code = ? AND ${LIVE}`),
    consume: db.prepare('UPDATE oauth_records SET consumed_ms = ? WHERE model = ? AND id = ? AND consumed_ms IS NULL'),
    destroy: db.prepare('DELETE FROM oauth_records WHERE model = ? AND id = ?'),
    revokeGrant: db.prepare('DELETE FROM oauth_records WHERE grant_id = ? OR (model = ? AND id = ?)'),
    byAccount: db.prepare(
      `SELECT * FROM oauth_records WHERE model = ? AND account_id = ? AND ${LIVE} ORDER BY rowid DESC`,
    ),
    purge: db.prepare('DELETE FROM oauth_records WHERE expires_ms IS NOT NULL AND expires_ms <= ?'),
    accInsert: db.prepare(
      'INSERT INTO buyer_accounts (id, email, password_hash, name, phone, created_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING',
    ),
    accByEmail: db.prepare('SELECT * FROM buyer_accounts WHERE email = ?'),
    accById: db.prepare('SELECT * FROM buyer_accounts WHERE id = ?'),
    accPassword: db.prepare('UPDATE buyer_accounts SET password_hash = ? WHERE id = ?'),
    link: db.prepare(
      'INSERT INTO buyer_bookings (account_id, booking_id, created_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    owns: db.prepare('SELECT 1 FROM buyer_bookings WHERE account_id = ? AND booking_id = ?'),
    bookings: db.prepare(
      'SELECT booking_id, created_ms FROM buyer_bookings WHERE account_id = ? ORDER BY created_ms DESC, booking_id DESC LIMIT ?',
    ),
    bookingsBefore: db.prepare(
      `SELECT booking_id, created_ms FROM buyer_bookings WHERE account_id = ? AND (created_ms < ? OR (created_ms = ? AND booking_id < ?))
       ORDER BY created_ms DESC, booking_id DESC LIMIT ?`,
    ),
  };
  const oauth: OAuthRepo = {
    async upsert(r) {
      q.upsert.run(r.model, r.id, JSON.stringify(r.payload), r.grantId, r.uid, r.userCode, r.accountId, r.expiresMs);
    },
    async find(model, id, nowMs) {
      const r = q.find.get(model, id, nowMs) as Row | undefined;
      return r ? toRecord(r) : null;
    },
    async findByUid(model, uid, nowMs) {
      const r = q.byUid.get(model, uid, nowMs) as Row | undefined;
      return r ? toRecord(r) : null;
    },
    async findByUserCode(model, userCode, nowMs) {
      const r = q.byUserCode.get(model, userCode, nowMs) as Row | undefined;
      return r ? toRecord(r) : null;
    },
    async consume(model, id, nowMs) {
      return q.consume.run(nowMs, model, id).changes > 0;
    },
    async destroy(model, id) {
      q.destroy.run(model, id);
    },
    async revokeByGrantId(grantId) {
      return q.revokeGrant.run(grantId, 'Grant', grantId).changes;
    },
    async byAccount(model, accountId, nowMs) {
      return (q.byAccount.all(model, accountId, nowMs) as Row[]).map(toRecord);
    },
    async purge(nowMs) {
      return q.purge.run(nowMs).changes;
    },
  };
  const accounts: AccountRepo = {
    async create(a) {
      return q.accInsert.run(a.id, a.email, a.password_hash, a.name, a.phone, a.created_ms).changes > 0;
    },
    async byEmail(email) {
      const r = q.accByEmail.get(email) as BuyerAccountRow | undefined;
      return r ? toBuyerAccount(r) : null;
    },
    async byId(id) {
      const r = q.accById.get(id) as BuyerAccountRow | undefined;
      return r ? toBuyerAccount(r) : null;
    },
    async setPassword(id, passwordHash) {
      return q.accPassword.run(passwordHash, id).changes > 0;
    },
    async linkBooking(accountId, bookingId, createdMs) {
      q.link.run(accountId, bookingId, createdMs);
    },
    async owns(accountId, bookingId) {
      return q.owns.get(accountId, bookingId) !== undefined;
    },
    async bookings(accountId, limit, before) {
      const rows = (
        before
          ? q.bookingsBefore.all(accountId, before.createdMs, before.createdMs, before.bookingId, limit)
          : q.bookings.all(accountId, limit)
      ) as Array<{
        booking_id: string;
        created_ms: number;
      }>;
      return rows.map(toBuyerBooking);
    },
  };
  return { oauth, accounts };
}
