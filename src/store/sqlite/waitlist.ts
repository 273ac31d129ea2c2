import type { WaitlistRecord } from '../../domain/index.js';
import type { WaitlistRepo } from '../port.js';
import { WAITLIST_ENTRIES } from '../shared/rows.js';
import { waitlistListQuery } from '../shared/sql.js';
import { documents, ids, sqliteDocumentRepo } from './documents.js';
import { placeholders, SQLITE_DIALECT, type Statements } from './statements.js';

export function sqliteWaitlist(s: Statements): WaitlistRepo {
  const expiredOffers = s.prepare(
    `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_ms IS NOT NULL AND offer_expires_ms <= ? LIMIT ?`,
  );
  return {
    ...sqliteDocumentRepo(s, WAITLIST_ENTRIES),
    async list(w) {
      const { sql, args } = waitlistListQuery(SQLITE_DIALECT, w);
      return documents<WaitlistRecord>(s.prepare(sql), ...args);
    },
    async byService(serviceId, statuses) {
      if (statuses.length === 0) return [];
      const stmt = s.prepare(
        `SELECT data FROM waitlist_entries WHERE service_id = ? AND status IN (${placeholders(statuses.length)}) ORDER BY created_ms, id`,
      );
      return documents<WaitlistRecord>(stmt, serviceId, ...statuses);
    },
    async expiredOffers(nowMs, limit) {
      return ids(expiredOffers, nowMs, limit);
    },
  };
}
