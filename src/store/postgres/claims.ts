import type { ClaimRepo } from '../port.js';
import { CLAIM_COLUMNS, toClaim } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgClaims(s: PgSession): ClaimRepo {
  return {
    async active(resourceIds, fromMs, toMs, nowMs) {
      if (resourceIds.length === 0) return [];
      const r = await s.rows(
        // No claim is longer than claim_span.max_ms, so one overlapping [from, to) starts after
        // from - max_ms: the index range stays as narrow as the interval, however many claims exist.
        // (Without the row, no lower bound: correct, only slower.)
        `SELECT ${CLAIM_COLUMNS} FROM claims WHERE resource_id = ANY($1::text[])
         AND start_ms < $2 AND start_ms > $3::bigint - COALESCE((SELECT max_ms FROM claim_span WHERE id = 1), 9007199254740991)
         AND end_ms > $3 AND (expires_at_ms IS NULL OR expires_at_ms > $4)`,
        [resourceIds, toMs, fromMs, nowMs],
      );
      return r.map(toClaim);
    },
    async add(list) {
      if (list.length === 0) return;
      await s.write(
        `INSERT INTO claims (${CLAIM_COLUMNS})
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::boolean[], $8::text[], $9::bigint[])`,
        [
          list.map((r) => r.resource_id),
          list.map((r) => r.start_ms),
          list.map((r) => r.end_ms),
          list.map((r) => r.slot_key),
          list.map((r) => r.owner_id),
          list.map((r) => r.spots),
          list.map((r) => r.is_hold),
          list.map((r) => r.service_id),
          list.map((r) => r.expires_at_ms),
        ],
      );
      const span = Math.max(...list.map((r) => r.end_ms - r.start_ms));
      await s.write('UPDATE claim_span SET max_ms = $1 WHERE id = 1 AND max_ms < $1', [span]);
    },
    async removeOwner(ownerId) {
      await s.query('DELETE FROM claims WHERE owner_id = $1', [ownerId]);
    },
    async purgeEnded(endedBeforeMs, nowMs) {
      return (
        (
          await s.query(
            'DELETE FROM claims WHERE end_ms <= $1 OR (expires_at_ms IS NOT NULL AND expires_at_ms <= $2)',
            [endedBeforeMs, nowMs],
          )
        ).rowCount ?? 0
      );
    },
    async transfer(fromOwner, toOwner, expiresAtMs) {
      await s.write('UPDATE claims SET owner_id = $1, is_hold = FALSE, expires_at_ms = $2 WHERE owner_id = $3', [
        toOwner,
        expiresAtMs,
        fromOwner,
      ]);
    },
    async version(resourceIds) {
      if (resourceIds.length === 0) return 0;
      // Bumped by triggers on claims and schedule_changes (migrations.ts).
      const r = await s.rows(
        'SELECT COALESCE(SUM(version), 0)::text AS v FROM resource_versions WHERE resource_id = ANY($1::text[])',
        [resourceIds],
      );
      return Number(r[0].v);
    },
    async setExpiry(ownerId, expiresAtMs) {
      await s.query('UPDATE claims SET expires_at_ms = $1 WHERE owner_id = $2', [expiresAtMs, ownerId]);
    },
  };
}
