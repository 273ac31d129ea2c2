import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { subscriptionUpdateValues, subscriptionValues } from '../shared/rows.js';
import { documents, oneDocument } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteSubscriptions(s: Statements): SubscriptionRepo {
  const get = s.prepare('SELECT data FROM feed_subscriptions WHERE id = ?');
  const insert = s.prepare('INSERT INTO feed_subscriptions (id, status, principal, data) VALUES (?, ?, ?, ?)');
  const update = s.prepare('UPDATE feed_subscriptions SET status = ?, data = ? WHERE id = ?');
  const active = s.prepare(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
  return {
    async get(id) {
      return oneDocument<SubscriptionRecord>(get, id);
    },
    async insert(rec) {
      insert.run(...subscriptionValues(rec));
    },
    async update(rec) {
      update.run(...subscriptionUpdateValues(rec));
    },
    async active() {
      return documents<SubscriptionRecord>(active);
    },
  };
}
