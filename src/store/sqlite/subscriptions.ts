import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { FEED_SUBSCRIPTIONS } from '../shared/rows.js';
import { documents, sqliteDocumentRepo } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteSubscriptions(s: Statements): SubscriptionRepo {
  const active = s.prepare(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
  return {
    ...sqliteDocumentRepo(s, FEED_SUBSCRIPTIONS),
    async active() {
      return documents<SubscriptionRecord>(active);
    },
  };
}
