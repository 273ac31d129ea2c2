import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { FEED_SUBSCRIPTIONS } from '../shared/rows.js';
import { documents, sqliteDocumentRepo } from './documents.js';
import type { Statements } from './statements.js';

export function sqliteSubscriptions(s: Statements): SubscriptionRepo {
  const active = s.prepare(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
  const docs = sqliteDocumentRepo(s, FEED_SUBSCRIPTIONS);
  // Named, not spread: a spread copy of the document repo took a hidden class of its own per store.
  return {
    get: docs.get,
    insert: docs.insert,
    update: docs.update,
    async active() {
      return documents<SubscriptionRecord>(active);
    },
  };
}
