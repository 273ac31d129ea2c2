import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { BOOKINGS } from '../shared/rows.js';
import { pgDocumentRepo, pgIds } from './documents.js';
import type { PgSession } from './session.js';

export function pgBookings(s: PgSession): BookingRepo {
  return {
    ...pgDocumentRepo(s, BOOKINGS),
    async byHold(holdId) {
      return s.document<BookingRecord>(`SELECT data FROM bookings WHERE hold_id = $1${s.forUpdate}`, [holdId]);
    },
    async recent(limit, status) {
      return status
        ? s.documents<BookingRecord>('SELECT data FROM bookings WHERE status = $1 ORDER BY seq DESC LIMIT $2', [
            status,
            limit,
          ])
        : s.documents<BookingRecord>('SELECT data FROM bookings ORDER BY seq DESC LIMIT $1', [limit]);
    },
    async expiredPending(nowMs, limit) {
      return pgIds(
        s,
        `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= $1 LIMIT $2`,
        [nowMs, limit],
      );
    },
    async gauges(nowMs) {
      const byStatus = await s.rows<{ status: string; n: string }>(
        'SELECT status, COUNT(*) AS n FROM bookings GROUP BY status',
      );
      const r = await s.rows<
        Record<'active_holds' | 'outbox_due' | 'deliveries_pending' | 'deliveries_leased', string>
      >(
        `SELECT (SELECT COUNT(*) FROM holds WHERE status = 'active' AND expires_at_ms > $1) AS active_holds,
                (SELECT COUNT(*) FROM outbox WHERE status = 'pending' AND due_ms <= $1) AS outbox_due,
                (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries_pending,
                (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND lease_until_ms > $1) AS deliveries_leased`,
        [nowMs],
      );
      const g = r[0];
      return {
        bookings_by_status: Object.fromEntries(byStatus.map((x) => [x.status, Number(x.n)])),
        active_holds: Number(g.active_holds),
        outbox_due: Number(g.outbox_due),
        deliveries_pending: Number(g.deliveries_pending),
        deliveries_leased: Number(g.deliveries_leased),
      };
    },
  };
}
