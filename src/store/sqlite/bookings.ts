import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { BOOKINGS } from '../shared/rows.js';
import { documents, ids, oneDocument, sqliteDocumentRepo } from './documents.js';
import type { Statement, Statements } from './statements.js';

export function sqliteBookings(s: Statements): BookingRepo {
  const byHold = s.prepare('SELECT data FROM bookings WHERE hold_id = ?');
  const recent = s.prepare('SELECT data FROM bookings ORDER BY rowid DESC LIMIT ?');
  const recentWithStatus = s.prepare('SELECT data FROM bookings WHERE status = ? ORDER BY rowid DESC LIMIT ?');
  const expired = s.prepare(
    `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= ? LIMIT ?`,
  );
  const byStatus = s.prepare('SELECT status, COUNT(*) AS n FROM bookings GROUP BY status');
  const activeHolds = s.prepare(`SELECT COUNT(*) AS n FROM holds WHERE status = 'active' AND expires_at_ms > ?`);
  const outboxDue = s.prepare(`SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending' AND due_ms <= ?`);
  const deliveriesPending = s.prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'`);
  const deliveriesLeased = s.prepare(
    `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND lease_until_ms > ?`,
  );
  const count = (stmt: Statement, ...args: unknown[]): number => (stmt.get(...args) as { n: number }).n;
  return {
    ...sqliteDocumentRepo(s, BOOKINGS),
    async byHold(holdId) {
      return oneDocument<BookingRecord>(byHold, holdId);
    },
    async recent(limit, status) {
      return status
        ? documents<BookingRecord>(recentWithStatus, status, limit)
        : documents<BookingRecord>(recent, limit);
    },
    async expiredPending(nowMs, limit) {
      return ids(expired, nowMs, limit);
    },
    async gauges(nowMs) {
      return {
        bookings_by_status: Object.fromEntries(
          (byStatus.all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
        ),
        active_holds: count(activeHolds, nowMs),
        outbox_due: count(outboxDue, nowMs),
        deliveries_pending: count(deliveriesPending),
        deliveries_leased: count(deliveriesLeased, nowMs),
      };
    },
  };
}
