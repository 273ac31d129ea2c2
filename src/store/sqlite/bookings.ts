import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { bookingUpdateValues, bookingValues } from '../shared/rows.js';
import { documents, ids, oneDocument } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteBookings(s: Statements): BookingRepo {
  const get = s.prepare('SELECT data FROM bookings WHERE id = ?');
  const byHold = s.prepare('SELECT data FROM bookings WHERE hold_id = ?');
  const insert = s.prepare('INSERT INTO bookings (id, service_id, status, hold_id, principal, expires_at_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const update = s.prepare('UPDATE bookings SET status = ?, expires_at_ms = ?, data = ? WHERE id = ?');
  const recent = s.prepare('SELECT data FROM bookings ORDER BY rowid DESC LIMIT ?');
  const recentWithStatus = s.prepare('SELECT data FROM bookings WHERE status = ? ORDER BY rowid DESC LIMIT ?');
  const expired = s.prepare(
    `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= ? LIMIT ?`,
  );
  return {
    async get(id) {
      return oneDocument<BookingRecord>(get, id);
    },
    async byHold(holdId) {
      return oneDocument<BookingRecord>(byHold, holdId);
    },
    async insert(rec) {
      insert.run(...bookingValues(rec));
    },
    async update(rec) {
      update.run(...bookingUpdateValues(rec));
    },
    async recent(limit, status) {
      return status ? documents<BookingRecord>(recentWithStatus, status, limit) : documents<BookingRecord>(recent, limit);
    },
    async expiredPending(nowMs, limit) {
      return ids(expired, nowMs, limit);
    },
  };
}
