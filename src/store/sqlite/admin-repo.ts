/** The administration repository on SQLite (see ../admin-port.ts). */
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
export function sqliteAdminRepo(s: Statements): AdminRepo {
  const repo = Object.create(ADMIN) as AdminRepo & { s: Statements };
  repo.s = s;
  return repo;
}

// Every hold and booking re-validates its slot against the schedule changes of its resources: that
// statement is prepared once per number of resources (preparing cost more than running it), and
// its text is made once per number.
const CHANGES_TEXTS: string[] = [];
const changesText = (n: number) =>
  (CHANGES_TEXTS[n] ??=
    `SELECT * FROM schedule_changes WHERE resource_id IN (${placeholders(n)}) ORDER BY created_ms, id`);

/**
 * The repository's methods, once for every store (the prototype of each store's repository, which
 * holds only its statement cache): as closures of each store they were about 1.2 KB per hosted
 * business, which builds this repository as it opens (its dashboard setup). Each statement is
 * prepared once per connection, on its first use.
 */
const ADMIN: AdminRepo & ThisType<{ s: Statements }> = {
  async scheduleChanges(resourceIds) {
    if (resourceIds && resourceIds.length === 0) return [];
    const rows = resourceIds
      ? this.s.prepare(changesText(resourceIds.length)).all(...resourceIds)
      : this.s.prepare('SELECT * FROM schedule_changes ORDER BY created_ms, id').all();
    return rows.map(toChange);
  },
  async addScheduleChange(c) {
    this.s
      .prepare(
        'INSERT INTO schedule_changes (id, resource_id, kind, start_ms, end_ms, date, hours, reason, created_ms, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
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
    const row = this.s.prepare('DELETE FROM schedule_changes WHERE id = ? RETURNING *').get(id);
    return row ? toChange(row) : null;
  },
  async addAudit(a) {
    this.s
      .prepare('INSERT INTO admin_audit (at_ms, actor, action, target, outcome) VALUES (?, ?, ?, ?, ?)')
      .run(a.at_ms, a.actor, a.action, a.target, a.outcome);
  },
  async auditLog(limit, beforeSeq) {
    return this.s
      .prepare('SELECT * FROM admin_audit WHERE seq < ? ORDER BY seq DESC LIMIT ?')
      .all(beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as AuditRow[];
  },
  async putUser(u) {
    this.s
      .prepare(
        'INSERT INTO business_users (email, password_hash, created_ms) VALUES (?, ?, ?) ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash',
      )
      .run(u.email, u.password_hash, u.created_ms);
  },
  async user(email) {
    return (
      (this.s.prepare('SELECT * FROM business_users WHERE email = ?').get(email) as BusinessUserRow | undefined) ?? null
    );
  },
  async hasUsers() {
    return this.s.once('SELECT 1 FROM business_users LIMIT 1').get() !== undefined;
  },
  async putSession(s) {
    this.s
      .prepare('INSERT INTO admin_sessions (id_hash, email, csrf, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?)')
      .run(s.id_hash, s.email, s.csrf, s.created_ms, s.expires_ms);
  },
  async session(idHash, nowMs) {
    return (
      (this.s.prepare('SELECT * FROM admin_sessions WHERE id_hash = ? AND expires_ms > ?').get(idHash, nowMs) as
        | AdminSessionRow
        | undefined) ?? null
    );
  },
  async deleteSession(idHash) {
    this.s.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(idHash);
  },
  async addPlatformKey(k) {
    this.s
      .prepare('INSERT INTO platform_api_keys (id, sha256, label, created_ms, revoked_ms) VALUES (?, ?, ?, ?, ?)')
      .run(k.id, k.sha256, k.label, k.created_ms, k.revoked_ms);
  },
  async platformKeys() {
    return this.s.prepare('SELECT * FROM platform_api_keys ORDER BY created_ms, id').all() as PlatformKeyRow[];
  },
  async platformKeyByHash(sha256) {
    return (
      (this.s.prepare('SELECT * FROM platform_api_keys WHERE sha256 = ? AND revoked_ms IS NULL').get(sha256) as
        | PlatformKeyRow
        | undefined) ?? null
    );
  },
  async revokePlatformKey(id, nowMs) {
    return (
      this.s.prepare('UPDATE platform_api_keys SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL').run(nowMs, id)
        .changes > 0
    );
  },
  async bookingsStarting(fromMs, toMs) {
    const rows = this.s
      .prepare(
        "SELECT data FROM bookings WHERE json_extract(data, '$.priv.start_ms') >= ? AND json_extract(data, '$.priv.start_ms') < ? ORDER BY json_extract(data, '$.priv.start_ms'), id",
      )
      .all(fromMs, toMs) as Array<{ data: string }>;
    return rows.map((r) => JSON.parse(r.data) as BookingRecord);
  },
  async eventsOf(orderKey) {
    return (
      this.s.prepare(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE order_key = ? ORDER BY seq`).all(orderKey) as any[]
    ).map(withoutSeq);
  },
};
