import type { HoldRepo } from '../port.js';
import { HOLDS } from '../shared/rows.js';
import { pgDocumentRepo } from './documents.js';
import type { PgSession } from './session.js';

export function pgHolds(s: PgSession): HoldRepo {
  return {
    ...pgDocumentRepo(s, HOLDS),
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
