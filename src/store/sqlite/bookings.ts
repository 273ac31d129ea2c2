import type { BookingRecord } from '../../domain/index.js';
import type { BookingRepo } from '../port.js';
import { BOOKINGS } from '../shared/rows.js';
import { documents, ids, oneDocument, sqliteDocumentRepo } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteBookings(s: Statements): BookingRepo {
  const byHold = s.prepare('SELECT data FROM bookings WHERE hold_id = ?');
  const recent = s.prepare('SELECT data FROM bookings ORDER BY rowid DESC LIMIT ?');
  const recentWithStatus = s.prepare('SELECT data FROM bookings WHERE status = ? ORDER BY rowid DESC LIMIT ?');
  const expired = s.prepare(
    `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= ? LIMIT ?`,
  );
  return {
    ...sqliteDocumentRepo(s, BOOKINGS),
    async byHold(holdId) {
      return oneDocument<BookingRecord>(byHold, holdId);
    },
    async recent(limit, status) {
      return status ? documents<BookingRecord>(recentWithStatus, status, limit) : documents<BookingRecord>(recent, limit);
    },
    async expiredPending(nowMs, limit) {
      return ids(expired, nowMs, limit);
    },
  };
}
