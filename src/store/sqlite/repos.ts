/**
 * A connection's repositories, each built on its first use. A store has two connections (writer and
 * reader) and about twenty repositories on each; a request reaches a few of them, and a deployment
 * hosting many businesses holds every loaded business's store. Built up front, each repository's
 * methods, its named statements (one small object each, about 270 per store) and their SQL texts
 * cost each loaded business some 20 KB of heap (docs/SCALING.md). The getters are the class's, so
 * an unused repository costs one empty slot; a built one is kept.
 */
import type { Tx } from '../port.js';
import { settleAll } from '../shared/settle-all.js';
import { sqliteAdminRepo } from './admin-repo.js';
import { sqliteBookings } from './bookings.js';
import { sqliteCalendars } from './calendars.js';
import { sqliteCatalog } from './catalog.js';
import { sqliteClaims } from './claims.js';
import { sqliteDefinition } from './definition.js';
import { sqliteFrontDesk } from './frontdesk-repo.js';
import { sqliteHolds } from './holds.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteKeyValue } from './kv.js';
import { sqliteMail } from './mail.js';
import { sqliteOAuthRepos } from './oauth-repo.js';
import { sqliteOutbox } from './outbox.js';
import { sqlitePayments } from './payments.js';
import { sqliteRegistryRepo } from './registry-repo.js';
import { sqliteSecurity } from './security.js';
import { type Db, Statements, lazilyPreparing } from './statements.js';
import { sqliteSubscriptions } from './subscriptions.js';
import { sqliteWaitlist } from './waitlist.js';
import { sqliteWebhooks } from './webhooks.js';

type Repos = Omit<Tx, 'lock' | 'together'>;

export function buildRepos(connection: Db): Tx {
  return new SqliteRepos(connection);
}

class SqliteRepos implements Tx {
  readonly #connection: Db;
  readonly #made: Partial<Repos> = {};
  #s: Statements | undefined;
  #db: Db | undefined;
  constructor(connection: Db) {
    this.#connection = connection;
  }
  /** The statement cache the newer repositories prepare through (./statements.ts). */
  get #stmts(): Statements {
    return (this.#s ??= new Statements(this.#connection));
  }
  /** The connection as the older repositories see it: its statements prepared on first use. */
  get #lazy(): Db {
    return (this.#db ??= lazilyPreparing(this.#connection));
  }
  #get<K extends keyof Repos>(k: K, make: () => Repos[K]): Repos[K] {
    const made = this.#made[k];
    if (made) return made as Repos[K];
    // What the repository prepares as it is built it keeps itself: not entered in the cache.
    const s = this.#stmts;
    s.building++;
    try {
      return (this.#made[k] = make()) as Repos[K];
    } finally {
      s.building--;
    }
  }
  async lock(): Promise<void> {
    // Transactions are already serial in this process (one connection, BEGIN IMMEDIATE).
  }
  // Statements run at once, in process: the branches in turn.
  together: Tx['together'] = (...fns) => settleAll(fns.map((fn) => (async () => fn())())) as never;
  get registry() {
    return this.#get('registry', () => sqliteRegistryRepo(this.#lazy));
  }
  get admin() {
    return this.#get('admin', () => sqliteAdminRepo(this.#stmts));
  }
  get security() {
    return this.#get('security', () => sqliteSecurity(this.#stmts));
  }
  get webhooks() {
    return this.#get('webhooks', () => sqliteWebhooks(this.#stmts));
  }
  get claims() {
    return this.#get('claims', () => sqliteClaims(this.#stmts));
  }
  get bookings() {
    return this.#get('bookings', () => sqliteBookings(this.#stmts));
  }
  get holds() {
    return this.#get('holds', () => sqliteHolds(this.#stmts));
  }
  get waitlist() {
    return this.#get('waitlist', () => sqliteWaitlist(this.#stmts));
  }
  get idempotency() {
    return this.#get('idempotency', () => sqliteIdempotency(this.#stmts));
  }
  get catalog() {
    return this.#get('catalog', () => sqliteCatalog(this.#stmts));
  }
  get subscriptions() {
    return this.#get('subscriptions', () => sqliteSubscriptions(this.#stmts));
  }
  get outbox() {
    return this.#get('outbox', () => sqliteOutbox(this.#stmts));
  }
  get kv() {
    return this.#get('kv', () => sqliteKeyValue(this.#stmts));
  }
  get definition() {
    return this.#get('definition', () => sqliteDefinition(this.#stmts));
  }
  get payments() {
    return this.#get('payments', () => sqlitePayments(this.#lazy));
  }
  get mail() {
    return this.#get('mail', () => sqliteMail(this.#lazy));
  }
  get frontdesk() {
    return this.#get('frontdesk', () => sqliteFrontDesk(this.#lazy));
  }
  get calendars() {
    return this.#get('calendars', () => sqliteCalendars(this.#stmts));
  }
  get oauth() {
    return this.#get('oauth', () => this.#oauthRepos().oauth);
  }
  get accounts() {
    return this.#get('accounts', () => this.#oauthRepos().accounts);
  }
  #oauthRepos() {
    const both = sqliteOAuthRepos(this.#lazy);
    this.#made.oauth ??= both.oauth;
    this.#made.accounts ??= both.accounts;
    return { oauth: this.#made.oauth, accounts: this.#made.accounts };
  }
}
