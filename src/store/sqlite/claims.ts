import type { ClaimRepo } from '../port.js';
import { CLAIM_COLUMNS, toClaim } from '../shared/rows.js';
import { placeholders, type Statement, type Statements } from './statements.js';

export function sqliteClaims(s: Statements): ClaimRepo {
  const insert = s.prepare(
    `INSERT INTO claims (${CLAIM_COLUMNS})
     VALUES (@resource_id, @start_ms, @end_ms, @slot_key, @owner_id, @spots, @is_hold, @service_id, @expires_at_ms)`,
  );
  const removeOwner = s.prepare('DELETE FROM claims WHERE owner_id = ?');
  const transfer = s.prepare('UPDATE claims SET owner_id = ?, is_hold = 0, expires_at_ms = ? WHERE owner_id = ?');
  const setExpiry = s.prepare('UPDATE claims SET expires_at_ms = ? WHERE owner_id = ?');
  const purge = s.prepare('DELETE FROM claims WHERE end_ms <= ? OR (expires_at_ms IS NOT NULL AND expires_at_ms <= ?)');
  const widen = s.prepare('UPDATE claim_span SET max_ms = ? WHERE id = 1 AND max_ms < ?');
  /** One statement per number of resources, prepared once. */
  const activeByCount = new Map<number, Statement>();
  const versionByCount = new Map<number, Statement>();
  return {
    async active(resourceIds, fromMs, toMs, nowMs) {
      if (resourceIds.length === 0) return [];
      let stmt = activeByCount.get(resourceIds.length);
      if (!stmt) {
        // No claim is longer than claim_span.max_ms, so one overlapping [from, to) starts after
        // from - max_ms: the index range stays as narrow as the interval, however many claims exist.
        // (Without the row, no lower bound: correct, only slower.)
        stmt = s.prepare(
          `SELECT ${CLAIM_COLUMNS} FROM claims WHERE resource_id IN (${placeholders(resourceIds.length)})
           AND start_ms < ? AND start_ms > ? - COALESCE((SELECT max_ms FROM claim_span WHERE id = 1), 9007199254740991)
           AND end_ms > ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)`,
        );
        activeByCount.set(resourceIds.length, stmt);
      }
      return (stmt.all(...resourceIds, toMs, fromMs, fromMs, nowMs) as any[]).map(toClaim);
    },
    async add(rows) {
      let span = 0;
      for (const r of rows) {
        insert.run({ ...r, is_hold: r.is_hold ? 1 : 0 });
        span = Math.max(span, r.end_ms - r.start_ms);
      }
      if (rows.length > 0) widen.run(span, span);
    },
    async removeOwner(ownerId) {
      removeOwner.run(ownerId);
    },
    async transfer(fromOwner, toOwner, expiresAtMs) {
      transfer.run(toOwner, expiresAtMs, fromOwner);
    },
    async setExpiry(ownerId, expiresAtMs) {
      setExpiry.run(expiresAtMs, ownerId);
    },
    async purgeEnded(endedBeforeMs, nowMs) {
      return purge.run(endedBeforeMs, nowMs).changes;
    },
    async version(resourceIds) {
      if (resourceIds.length === 0) return 0;
      let stmt = versionByCount.get(resourceIds.length);
      if (!stmt) {
        // Bumped by triggers on claims and schedule_changes (migrations.ts).
        stmt = s.prepare(
          `SELECT COALESCE(SUM(version), 0) AS v FROM resource_versions WHERE resource_id IN (${placeholders(resourceIds.length)})`,
        );
        versionByCount.set(resourceIds.length, stmt);
      }
      return Number((stmt.get(...resourceIds) as { v: number }).v);
    },
  };
}
