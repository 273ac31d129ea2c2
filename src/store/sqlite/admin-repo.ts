/** The administration repository on SQLite (see ../admin-port.ts). */
import type Database from 'better-sqlite3';
import type { BookingRecord } from '../../domain/index.js';
import { placeholders, type Statements } from './statements.js';
import type {
  AdminRepo,
  AdminSessionRow,
  AuditRow,
  BusinessUserRow,
  PlatformKeyRow,
  ScheduleChangeRow,
} from '../admin-port.js';
import { OUTBOX_COLUMNS, withoutSeq } from '../shared/rows.js';

function toChange(r: any): ScheduleChangeRow {
  return { ...r, hours: r.hours === null ? null : JSON.parse(r.hours) } as ScheduleChangeRow;
}

/** `s`: the connection's statement cache (repos.ts), shared with its other repositories. */
export function sqliteAdminRepo(db: Database.Database, s: Statements): AdminRepo {
  // Every hold and booking re-validates its slot against the schedule changes of its resources:
  // that statement is prepared once per number of resources (preparing cost more than running it).
  const changesByCount: Array<Database.Statement | undefined> = [];
  const changesFor = (n: number) =>
    (changesByCount[n] ??= s.prepare(
      `SELECT * FROM schedule_changes WHERE resource_id IN (${placeholders(n)}) ORDER BY created_ms, id`,
    ));
  return {
    async scheduleChanges(resourceIds) {
      if (resourceIds && resourceIds.length === 0) return [];
      const rows = resourceIds
        ? changesFor(resourceIds.length).all(...resourceIds)
        : s.prepare('SELECT * FROM schedule_changes ORDER BY created_ms, id').all();
      return rows.map(toChange);
    },
    async addScheduleChange(c) {
      db.prepare(
        'INSERT INTO schedule_changes (id, resource_id, kind, start_ms, end_ms, date, hours, reason, created_ms, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        c.id,
        c.resource_id,
        c.kind,
        c.start_ms,
        c.end_ms,
        c.date,
        c.hours === null ? null : JSON.stringify(c.hours),
        c.reason,
        c.created_ms,
        c.created_by,
      );
    },
    async removeScheduleChange(id) {
      const row = db.prepare('DELETE FROM schedule_changes WHERE id = ? RETURNING *').get(id);
      return row ? toChange(row) : null;
    },
    async addAudit(a) {
      db.prepare('INSERT INTO admin_audit (at_ms, actor, action, target, outcome) VALUES (?, ?, ?, ?, ?)').run(
        a.at_ms,
        a.actor,
        a.action,
        a.target,
        a.outcome,
      );
    },
    async auditLog(limit, beforeSeq) {
      return db
        .prepare('SELECT * FROM admin_audit WHERE seq < ? ORDER BY seq DESC LIMIT ?')
        .all(beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as AuditRow[];
    },
    async putUser(u) {
      db.prepare(
        'INSERT INTO business_users (email, password_hash, created_ms) VALUES (?, ?, ?) ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash',
      ).run(u.email, u.password_hash, u.created_ms);
    },
    async user(email) {
      return (
        (db.prepare('SELECT * FROM business_users WHERE email = ?').get(email) as BusinessUserRow | undefined) ?? null
      );
    },
    async hasUsers() {
      return db.prepare('SELECT 1 FROM business_users LIMIT 1').get() !== undefined;
    },
    async putSession(s) {
      db.prepare(
        'INSERT INTO admin_sessions (id_hash, email, csrf, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?)',
      ).run(s.id_hash, s.email, s.csrf, s.created_ms, s.expires_ms);
    },
    async session(idHash, nowMs) {
      return (
        (db.prepare('SELECT * FROM admin_sessions WHERE id_hash = ? AND expires_ms > ?').get(idHash, nowMs) as
          | AdminSessionRow
          | undefined) ?? null
      );
    },
    async deleteSession(idHash) {
      db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(idHash);
    },
    async addPlatformKey(k) {
      db.prepare(
        'INSERT INTO platform_api_keys (id, sha256, label, created_ms, revoked_ms) VALUES (?, ?, ?, ?, ?)',
      ).run(k.id, k.sha256, k.label, k.created_ms, k.revoked_ms);
    },
    async platformKeys() {
      return db.prepare('SELECT * FROM platform_api_keys ORDER BY created_ms, id').all() as PlatformKeyRow[];
    },
    async platformKeyByHash(sha256) {
      return (
        (db.prepare('SELECT * FROM platform_api_keys WHERE sha256 = ? AND revoked_ms IS NULL').get(sha256) as
          | PlatformKeyRow
          | undefined) ?? null
      );
    },
    async revokePlatformKey(id, nowMs) {
      return (
        db.prepare('UPDATE platform_api_keys SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL').run(nowMs, id)
          .changes > 0
      );
    },
    async bookingsStarting(fromMs, toMs) {
      const rows = db
        .prepare(
          "SELECT data FROM bookings WHERE json_extract(data, '$.priv.start_ms') >= ? AND json_extract(data, '$.priv.start_ms') < ? ORDER BY json_extract(data, '$.priv.start_ms'), id",
        )
        .all(fromMs, toMs) as Array<{ data: string }>;
      return rows.map((r) => JSON.parse(r.data) as BookingRecord);
    },
    async eventsOf(orderKey) {
      return (
        db.prepare(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE order_key = ? ORDER BY seq`).all(orderKey) as any[]
      ).map(withoutSeq);
    },
  };
}
