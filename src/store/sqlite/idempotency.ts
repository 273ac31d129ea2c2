import type { IdempotencyRepo } from '../port.js';
import { IDEMPOTENCY_COLUMNS, idempotencyValues, toIdempotency } from '../shared/rows.js';
import type { Statements } from './statements.js';

export function sqliteIdempotency(s: Statements): IdempotencyRepo {
  const get = s.prepare(`SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency WHERE scope = ? AND expires_ms > ?`);
  const put = s.prepare(
    `INSERT INTO idempotency (${IDEMPOTENCY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status, body = excluded.body,
     created_ms = excluded.created_ms, expires_ms = excluded.expires_ms`,
  );
  const purge = s.prepare('DELETE FROM idempotency WHERE expires_ms <= ?');
  return {
    async get(scope, nowMs) {
      const r = get.get(scope, nowMs) as Record<string, unknown> | undefined;
      return r ? toIdempotency(r) : null;
    },
    // One writer at a time already (the write transaction holds the file's lock): the read is the claim.
    async claim(scope, nowMs) {
      const r = get.get(scope, nowMs) as Record<string, unknown> | undefined;
      return r ? toIdempotency(r) : null;
    },
    async put(rec) {
      put.run(...idempotencyValues(rec));
    },
    async purge(nowMs) {
      return purge.run(nowMs).changes;
    },
  };
}
