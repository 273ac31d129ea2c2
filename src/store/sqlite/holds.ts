import type { HoldRepo } from '../port.js';
import { HOLDS } from '../shared/rows.js';
import { sqliteDocumentRepo } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteHolds(s: Statements): HoldRepo {
  const count = s.prepare(
    `SELECT COUNT(*) AS n FROM holds WHERE principal IS ? AND buyer_key IS ? AND service_id = ? AND status = 'active' AND expires_at_ms > ?`,
  );
  return {
    ...sqliteDocumentRepo(s, HOLDS),
    async countActive(principal, buyerKey, serviceId, nowMs) {
      return (count.get(principal, buyerKey, serviceId, nowMs) as { n: number }).n;
    },
  };
}
