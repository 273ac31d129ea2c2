import type { HoldRecord } from '../../domain/index.js';
import type { HoldRepo } from '../port.js';
import { holdUpdateValues, holdValues } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgHolds(s: PgSession): HoldRepo {
  return {
    async get(id) {
      return s.document<HoldRecord>(`SELECT data FROM holds WHERE id = $1${s.forUpdate}`, [id]);
    },
    async insert(rec) {
      await s.query('INSERT INTO holds (id, service_id, status, principal, buyer_key, expires_at_ms, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', holdValues(rec));
    },
    async update(rec) {
      await s.query('UPDATE holds SET status = $1, expires_at_ms = $2, data = $3 WHERE id = $4', holdUpdateValues(rec));
    },
    async countActive(principal, buyerKey, serviceId, nowMs) {
      // Count-then-insert (the hold-abuse limit) stays serial per principal, buyer and service.
      await s.lockKey(`holds:${principal ?? ''}|${buyerKey ?? ''}|${serviceId}`);
      const r = await s.rows<{ n: number }>(
        `SELECT COUNT(*) AS n FROM holds WHERE principal IS NOT DISTINCT FROM $1 AND buyer_key IS NOT DISTINCT FROM $2
         AND service_id = $3 AND status = 'active' AND expires_at_ms > $4`,
        [principal, buyerKey, serviceId, nowMs],
      );
      return r[0].n;
    },
  };
}
