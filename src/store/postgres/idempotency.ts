import type { IdempotencyRepo } from '../port.js';
import { IDEMPOTENCY_COLUMNS, idempotencyValues, toIdempotency } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgIdempotency(s: PgSession): IdempotencyRepo {
  const get = async (scope: string, nowMs: number) => {
    const r = await s.rows(
      `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency WHERE scope = $1 AND expires_ms > $2${s.forUpdate}`,
      [scope, nowMs],
    );
    return r.length > 0 ? toIdempotency(r[0]) : null;
  };
  return {
    get,
    async claim(scope, nowMs) {
      // The lock travels with the read (one round trip); the read still follows the grant.
      await s.lockKey(`idempotency:${scope}`);
      return get(scope, nowMs);
    },
    async put(rec) {
      await s.write(
        `INSERT INTO idempotency (${IDEMPOTENCY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (scope) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status, body = EXCLUDED.body,
         created_ms = EXCLUDED.created_ms, expires_ms = EXCLUDED.expires_ms`,
        idempotencyValues(rec),
      );
    },
    async purge(nowMs) {
      return (await s.query('DELETE FROM idempotency WHERE expires_ms <= $1', [nowMs])).rowCount ?? 0;
    },
  };
}
