import type { SubscriptionRecord } from '../../domain/index.js';
import type { SubscriptionRepo } from '../port.js';
import { FEED_SUBSCRIPTIONS } from '../shared/rows.js';
import { documents, documentTexts, oneDocument } from './documents.js';
import type { Statements } from './statements.js';

const ACTIVE = `SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`;
const TEXTS = documentTexts(FEED_SUBSCRIPTIONS);

export function sqliteSubscriptions(s: Statements): SubscriptionRepo {
  return new SqliteSubscriptions(s);
}

/**
 * A class over the connection's statement cache (./outbox.ts): every business's webhook dispatcher
 * opens this repository, so its methods are shared, not closures made per store.
 */
class SqliteSubscriptions implements SubscriptionRepo {
  constructor(private readonly s: Statements) {}
  async get(id: string) {
    return oneDocument<SubscriptionRecord>(this.s.prepare(TEXTS.get), id);
  }
  async insert(rec: SubscriptionRecord) {
    this.s.prepare(TEXTS.insert).run(...FEED_SUBSCRIPTIONS.values(rec));
  }
  async update(rec: SubscriptionRecord) {
    this.s.prepare(TEXTS.update).run(...FEED_SUBSCRIPTIONS.updateValues(rec));
  }
  async active() {
    return documents<SubscriptionRecord>(this.s.prepare(ACTIVE));
  }
}
