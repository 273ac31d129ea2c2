/** The administration repository on PostgreSQL (see ../admin-port.ts); the same tables as on SQLite. */
import type pg from 'pg';
import type { BookingRecord } from '../../domain/index.js';
import type {
  AdminRepo,
  AdminSessionRow,
  AuditRow,
  BusinessUserRow,
  PlatformKeyRow,
  ScheduleChangeRow,
} from '../admin-port.js';
import { OUTBOX_COLUMNS, withoutSeq } from '../shared/rows.js';

type Query = <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

function toChange(r: any): ScheduleChangeRow {
  return { ...r, hours: r.hours === null ? null : JSON.parse(r.hours) } as ScheduleChangeRow;
}

export function postgresAdminRepo(q: Query): AdminRepo {
  return {
    async scheduleChanges(resourceIds) {
      if (resourceIds && resourceIds.length === 0) return [];
      const r = resourceIds
        ? await q('SELECT * FROM schedule_changes WHERE resource_id = ANY($1) ORDER BY created_ms, id', [resourceIds])
        : await q('SELECT * FROM schedule_changes ORDER BY created_ms, id');
      return r.rows.map(toChange);
    },
    async addScheduleChange(c) {
      await q(
        'INSERT INTO schedule_changes (id, resource_id, kind, start_ms, end_ms, date, hours, reason, created_ms, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
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
        ],
      );
    },
    async removeScheduleChange(id) {
      const r = await q('DELETE FROM schedule_changes WHERE id = $1 RETURNING *', [id]);
      return r.rows.length > 0 ? toChange(r.rows[0]) : null;
    },
    async addAudit(a) {
      await q('INSERT INTO admin_audit (at_ms, actor, action, target, outcome) VALUES ($1, $2, $3, $4, $5)', [
        a.at_ms,
        a.actor,
        a.action,
        a.target,
        a.outcome,
      ]);
    },
    async auditLog(limit, beforeSeq) {
      return (
        await q<AuditRow>('SELECT * FROM admin_audit WHERE seq < $1 ORDER BY seq DESC LIMIT $2', [
          beforeSeq ?? Number.MAX_SAFE_INTEGER,
          limit,
        ])
      ).rows;
    },
    async putUser(u) {
      await q(
        'INSERT INTO business_users (email, password_hash, created_ms) VALUES ($1, $2, $3) ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash',
        [u.email, u.password_hash, u.created_ms],
      );
    },
    async user(email) {
      return (await q<BusinessUserRow>('SELECT * FROM business_users WHERE email = $1', [email])).rows[0] ?? null;
    },
    async hasUsers() {
      return (await q('SELECT 1 FROM business_users LIMIT 1')).rows.length > 0;
    },
    async putSession(s) {
      await q('INSERT INTO admin_sessions (id_hash, email, csrf, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5)', [
        s.id_hash,
        s.email,
        s.csrf,
        s.created_ms,
        s.expires_ms,
      ]);
    },
    async session(idHash, nowMs) {
      return (
        (
          await q<AdminSessionRow>('SELECT * FROM admin_sessions WHERE id_hash = $1 AND expires_ms > $2', [
            idHash,
            nowMs,
          ])
        ).rows[0] ?? null
      );
    },
    async deleteSession(idHash) {
      await q('DELETE FROM admin_sessions WHERE id_hash = $1', [idHash]);
    },
    async addPlatformKey(k) {
      await q('INSERT INTO platform_api_keys (id, sha256, label, created_ms, revoked_ms) VALUES ($1, $2, $3, $4, $5)', [
        k.id,
        k.sha256,
        k.label,
        k.created_ms,
        k.revoked_ms,
      ]);
    },
    async platformKeys() {
      return (await q<PlatformKeyRow>('SELECT * FROM platform_api_keys ORDER BY created_ms, id')).rows;
    },
    async platformKeyByHash(sha256) {
      return (
        (await q<PlatformKeyRow>('SELECT * FROM platform_api_keys WHERE sha256 = $1 AND revoked_ms IS NULL', [sha256]))
          .rows[0] ?? null
      );
    },
    async revokePlatformKey(id, nowMs) {
      return (
        ((await q('UPDATE platform_api_keys SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL', [nowMs, id]))
          .rowCount ?? 0) > 0
      );
    },
    async bookingsStarting(fromMs, toMs) {
      const r = await q<{ data: string }>(
        "SELECT data FROM bookings WHERE (data::jsonb -> 'priv' ->> 'start_ms')::bigint >= $1 AND (data::jsonb -> 'priv' ->> 'start_ms')::bigint < $2 ORDER BY (data::jsonb -> 'priv' ->> 'start_ms')::bigint, id",
        [fromMs, toMs],
      );
      return r.rows.map((x) => JSON.parse(x.data) as BookingRecord);
    },
    async eventsOf(orderKey) {
      const r = await q(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE order_key = $1 ORDER BY seq`, [orderKey]);
      return r.rows.map(withoutSeq);
    },
  };
}
