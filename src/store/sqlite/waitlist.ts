import type { WaitlistRecord } from '../../domain/index.js';
import type { WaitlistRepo } from '../port.js';
import { waitlistUpdateValues, waitlistValues } from '../shared/rows.js';
import { waitlistListQuery } from '../shared/sql.js';
import { documents, ids, oneDocument } from './documents.js';
import { placeholders, SQLITE_DIALECT, type Statements } from './statements.js';

export function sqliteWaitlist(s: Statements): WaitlistRepo {
  const get = s.prepare('SELECT data FROM waitlist_entries WHERE id = ?');
  const insert = s.prepare(
    'INSERT INTO waitlist_entries (id, service_id, status, principal, created_ms, offer_expires_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const update = s.prepare('UPDATE waitlist_entries SET status = ?, offer_expires_ms = ?, data = ? WHERE id = ?');
  const expiredOffers = s.prepare(
    `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_ms IS NOT NULL AND offer_expires_ms <= ? LIMIT ?`,
  );
  return {
    async get(id) {
      return oneDocument<WaitlistRecord>(get, id);
    },
    async insert(rec) {
      insert.run(...waitlistValues(rec));
    },
    async update(rec) {
      update.run(...waitlistUpdateValues(rec));
    },
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
