import type { HoldRecord } from '../../domain/index.js';
import type { HoldRepo } from '../port.js';
import { holdUpdateValues, holdValues } from '../shared/rows.js';
import { oneDocument } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteHolds(s: Statements): HoldRepo {
  const get = s.prepare('SELECT data FROM holds WHERE id = ?');
  const insert = s.prepare('INSERT INTO holds (id, service_id, status, principal, buyer_key, expires_at_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const update = s.prepare('UPDATE holds SET status = ?, expires_at_ms = ?, data = ? WHERE id = ?');
  const count = s.prepare(
    `SELECT COUNT(*) AS n FROM holds WHERE principal IS ? AND buyer_key IS ? AND service_id = ? AND status = 'active' AND expires_at_ms > ?`,
  );
  return {
    async get(id) {
      return oneDocument<HoldRecord>(get, id);
    },
    async insert(rec) {
      insert.run(...holdValues(rec));
    },
    async update(rec) {
      update.run(...holdUpdateValues(rec));
    },
    async countActive(principal, buyerKey, serviceId, nowMs) {
      return (count.get(principal, buyerKey, serviceId, nowMs) as { n: number }).n;
    },
  };
}
