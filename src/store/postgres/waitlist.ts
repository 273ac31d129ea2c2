import type { WaitlistRecord } from '../../domain/index.js';
import type { WaitlistRepo } from '../port.js';
import { WAITLIST_ENTRIES } from '../shared/rows.js';
import { waitlistListQuery } from '../shared/sql.js';
import { pgDocumentRepo, pgIds } from './documents.js';
import { PG_DIALECT, type PgSession } from './session.js';

export function pgWaitlist(s: PgSession): WaitlistRepo {
  return {
    ...pgDocumentRepo(s, WAITLIST_ENTRIES),
    async list(w) {
      const { sql, args } = waitlistListQuery(PG_DIALECT, w);
      return s.documents<WaitlistRecord>(sql, args);
    },
    async byService(serviceId, statuses) {
      if (statuses.length === 0) return [];
      // The line of one service is read-then-written (join, offer a freed place, move up): one at a time.
      await s.lockKey(`waitlist:${serviceId}`);
      return s.documents<WaitlistRecord>(
        'SELECT data FROM waitlist_entries WHERE service_id = $1 AND status = ANY($2::text[]) ORDER BY created_ms, id',
        [serviceId, statuses],
      );
    },
    async expiredOffers(nowMs, limit) {
      return pgIds(
        s,
        `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_ms IS NOT NULL AND offer_expires_ms <= $1 LIMIT $2`,
        [nowMs, limit],
      );
    },
  };
}
