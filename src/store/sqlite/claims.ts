import type { ClaimRepo } from '../port.js';
import { CLAIM_COLUMNS, toClaim } from '../shared/rows.js';
import { placeholders, type Statements } from './statements.js';

export function sqliteClaims(s: Statements): ClaimRepo {
  const insert = s.prepare(
    `INSERT INTO claims (${CLAIM_COLUMNS})
     VALUES (@resource_id, @start_ms, @end_ms, @slot_key, @owner_id, @spots, @is_hold, @service_id, @expires_at_ms)`,
  );
  const removeOwner = s.prepare('DELETE FROM claims WHERE owner_id = ?');
  const transfer = s.prepare('UPDATE claims SET owner_id = ?, is_hold = 0, expires_at_ms = ? WHERE owner_id = ?');
  const setExpiry = s.prepare('UPDATE claims SET expires_at_ms = ? WHERE owner_id = ?');
  const purge = s.prepare('DELETE FROM claims WHERE end_ms <= ? OR (expires_at_ms IS NOT NULL AND expires_at_ms <= ?)');
  return {
    async active(resourceIds, fromMs, toMs, nowMs) {
      if (resourceIds.length === 0) return [];
      const stmt = s.prepare(
        `SELECT ${CLAIM_COLUMNS} FROM claims WHERE resource_id IN (${placeholders(resourceIds.length)})
         AND start_ms < ? AND end_ms > ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)`,
      );
      return (stmt.all(...resourceIds, toMs, fromMs, nowMs) as any[]).map(toClaim);
    },
    async add(rows) {
      for (const r of rows) insert.run({ ...r, is_hold: r.is_hold ? 1 : 0 });
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
  };
}
