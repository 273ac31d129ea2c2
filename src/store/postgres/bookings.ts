import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { bookingUpdateValues, bookingValues } from '../shared/rows.js';
import { type PgSession, pgIds } from './session.js';

export function pgBookings(s: PgSession): BookingRepo {
  return {
    async get(id) {
      return s.document<BookingRecord>(`SELECT data FROM bookings WHERE id = $1${s.forUpdate}`, [id]);
    },
    async byHold(holdId) {
      return s.document<BookingRecord>(`SELECT data FROM bookings WHERE hold_id = $1${s.forUpdate}`, [holdId]);
    },
    async insert(rec) {
      await s.query('INSERT INTO bookings (id, service_id, status, hold_id, principal, expires_at_ms, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', bookingValues(rec));
    },
    async update(rec) {
      await s.query('UPDATE bookings SET status = $1, expires_at_ms = $2, data = $3 WHERE id = $4', bookingUpdateValues(rec));
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
