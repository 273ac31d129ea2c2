import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { FEED_SUBSCRIPTIONS } from '../shared/rows.js';
import { pgDocumentRepo } from './documents.js';
import type { PgSession } from './session.js';

export function pgSubscriptions(s: PgSession): SubscriptionRepo {
  return {
    ...pgDocumentRepo(s, FEED_SUBSCRIPTIONS),
    async active() {
      return s.documents<SubscriptionRecord>(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
    },
  };
}
