import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { BOOKINGS } from '../shared/rows.js';
import { type PgSession, pgDocumentRepo, pgIds } from './session.js';

export function pgBookings(s: PgSession): BookingRepo {
  return {
    ...pgDocumentRepo(s, BOOKINGS),
    async byHold(holdId) {
      return s.document<BookingRecord>(`SELECT data FROM bookings WHERE hold_id = $1${s.forUpdate}`, [holdId]);
    },
    async recent(limit, status) {
      return status
        ? s.documents<BookingRecord>('SELECT data FROM bookings WHERE status = $1 ORDER BY seq DESC LIMIT $2', [status, limit])
        : s.documents<BookingRecord>('SELECT data FROM bookings ORDER BY seq DESC LIMIT $1', [limit]);
    },
    async expiredPending(nowMs, limit) {
      return pgIds(
        s,
        `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= $1 LIMIT $2`,
        [nowMs, limit],
      );
    },
  };
}
