import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { subscriptionUpdateValues, subscriptionValues } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgSubscriptions(s: PgSession): SubscriptionRepo {
  return {
    async get(id) {
      return s.document<SubscriptionRecord>(`SELECT data FROM feed_subscriptions WHERE id = $1${s.forUpdate}`, [id]);
    },
    async insert(rec) {
      await s.query('INSERT INTO feed_subscriptions (id, status, principal, data) VALUES ($1, $2, $3, $4)', subscriptionValues(rec));
    },
    async update(rec) {
      await s.query('UPDATE feed_subscriptions SET status = $1, data = $2 WHERE id = $3', subscriptionUpdateValues(rec));
    },
    async active() {
      return s.documents<SubscriptionRecord>(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
    },
  };
}
