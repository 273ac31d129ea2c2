/**
 * What a server is made from (its options, a role other than the business's) and what it gives
 * back: the composition root's contract, apart from the composition itself.
 */
import type { BusinessDef } from '../domain/index.js';
import type {
  AvailabilityCache,
  Business,
  BusinessScope,
  CallScope,
  Clock,
  PublicOrigin,
  DefinitionSource,
  IdSource,
  Logger,
  OperationDef,
  OperationEnv,
  Pipeline,
  ScopeResolver,
} from '../operations/index.js';
import type { OutboxEvent, Store, StoreTimeouts } from '../store/index.js';
import type { ProfileResolver } from '../security/index.js';
import type { RetryPolicy, SigningKeyring, WebhookDispatcher, WebhookSender } from '../webhooks/index.js';
import type { SessionHub } from '../bindings/mcp/index.js';
import type { OAuthDoorOptions } from '../oauth/index.js';
import type { PaymentWorker } from '../payments/index.js';
import type { MailWorker } from '../mail/index.js';
import type { Door, HostApp } from './host.js';
import type { DefinitionOrigin } from './definition-provenance.js';
import type { ConnectionLimits } from './listener.js';
import type { SecurityOptions } from './security-wiring.js';
import type { PaymentOptions } from './payments-wiring.js';
import type { MailOptions } from './mail-wiring.js';
import type { CalendarOptions, CalendarWiring } from './calendar-wiring.js';
import type { MetricsFamily, ServerMetrics } from './metrics.js';

export interface ServerOptions {
  business: BusinessDef;
  /** SQLite file path, ':memory:', or a postgres:// URL. */
  db: string;
  /** Bounds on waiting for the database (connect, statement or lock wait). */
  dbTimeouts?: StoreTimeouts;
  /** Told every statement the store sends (tests and benchmarks count statements and round trips); default none. */
  onDbStatement?: (sql: string) => void;
  sandbox: boolean;
  clock?: Clock;
  ids?: IdSource;
  log?: Logger;
  /** Extra admin API keys in clear (hashed at start), e.g. from --admin-key. */
  adminKeys?: string[];
  maxBodyBytes?: number;
  /** Run the housekeeping sweep this often (ms); 0 disables it. */
  sweepIntervalMs?: number;
  /**
   * Every background worker's idle poll (ms), over each worker's own (`webhooks.pollMs`, `mail.pollMs`...).
   * 0: no worker polls and no sweep runs by itself: the embedder asks `runDue()` instead (`usp-server
   * host serve`'s work hub, work-hub.ts), and the sweep's expiries count in `nextDueAt`.
   */
  workerPollMs?: number;
  /** Keep dispatched webhook events in the outbox this long after they were due (default 7 days; --event-retention-days). */
  eventRetentionMs?: number;
  /** Erase the people of bookings that ended longer ago than this (--retention-days; off by default). */
  personalDataRetentionMs?: number;
  /** Host header values accepted on the doors browsers' scripts call, MCP (DNS-rebinding defence); empty = loopback names when listening on loopback. */
  allowedHosts?: string[];
  /** Browser origins accepted on the MCP endpoints. */
  allowedOrigins?: string[];
  /** Browser origins given CORS on the REST door (`*`: any, without credentials); --cors-origin. */
  corsOrigins?: string[];
  /** Authentication settings (mechanisms, profile fetching, nonces, rate limits). */
  security?: SecurityOptions;
  /**
   * The TLS-terminating proxies in front of the server (addresses or CIDRs; `true`: loopback only).
   * Their X-Forwarded-For/Proto/Host are believed, nobody else's; plain-http requests a proxy did
   * not mark https are refused.
   */
  trustProxy?: boolean | string | readonly string[];
  /** Connection limits of the HTTP listener (slow clients, idle keep-alive, too many sockets). */
  connections?: Partial<ConnectionLimits>;
  /** MCP sessions: caps (global, per client address) and how soon unused and idle ones are closed. */
  mcpSessions?: {
    maxSessions?: number;
    maxSessionsPerAddress?: number;
    unusedSessionTimeoutMs?: number;
    idleTimeoutMs?: number;
  };
  /** Serve HTTPS directly with this PEM certificate chain and key. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Webhook delivery: retry schedule, timeout, signing key, or a replacement sender (tests). */
  webhooks?: {
    enabled?: boolean;
    retry?: Partial<RetryPolicy>;
    timeoutMs?: number;
    pollMs?: number;
    sender?: WebhookSender;
    signingKey?: { kid: string; pem: string };
    /** After a rotation, how long the next key is published before it signs (at least the profile's cache lifetime, 300 s; default 1 h; --key-overlap). */
    keyOverlapMs?: number;
  };
  /** Receives events after their transaction commits. */
  onEvents?: (events: readonly OutboxEvent[]) => void;
  /** Told when this process takes up a new stored business definition (an admin edit here or in another process). */
  onDefinitionChanged?: () => void;
  /** The OAuth authorization server and buyer account pages (on by default); false turns them off. */
  oauth?:
    | false
    | Pick<OAuthDoorOptions, 'loginLimits' | 'deliverCode' | 'deliverReset' | 'resetsPerAddressHour' | 'registration'>;
  /**
   * Which business a request is for, given the one this server composed: every door asks it per
   * request (default: always that one). The seam a deployment hosting many businesses resolves by Host.
   */
  resolveScope?: (req: Request, own: BusinessScope) => BusinessScope;
  /** The role served instead of the business's (the discovery registry). */
  role?: ServerRole;
  /** Bytes of computed availability answers kept for reuse (default 32 MiB); 0 turns the cache off. */
  availabilityCacheBytes?: number;
  /** Who takes online payments (default: the checkout URL template if set, else the sandbox page in a sandbox, else none). */
  payments?: PaymentOptions;
  /** Where buyers' mail goes (an SMTP relay, a folder); absent: messages are queued and not sent. */
  mail?: MailOptions;
  /**
   * Where the business definition comes from: `import` (default) stores `business` over whatever the
   * database holds; `stored_first` keeps the database's when it has one (`serve`, offline commands).
   */
  definition?: 'import' | 'stored_first';
  /**
   * Where `business` comes from (the built-in demo, or a file), recorded in the database when it is
   * imported and checked against what the database recorded (a demo's database never serves a file's
   * business, and the reverse); absent: no check (tests, embedding).
   */
  definitionOrigin?: DefinitionOrigin;
  /** Settings that override the stored definition's in this process (command-line flags). */
  settingsOverride?: Partial<BusinessDef['settings']>;
  /** Calendar sync: busy times from the resources' calendars, bookings pushed to writable CalDAV ones. */
  calendars?: CalendarOptions;
  /**
   * The operator suspended this business (a hosting deployment's switch, never the business's own):
   * every service is served `suspended` with the reason, the profile says so, and availability,
   * holds, bookings, reschedules and waitlist joins are refused naming it; reads, cancellations and
   * the business's own admin API and dashboard go on. `UspServer.setSuspended` changes it while running.
   */
  suspended?: { reason: string };
  /**
   * Hosting only (set by hosting.ts, never by an embedder): report into the process's one metrics
   * registry, this server's series labelled with the business's id, instead of a registry of its own.
   */
  sharedMetrics?: { family: MetricsFamily; business: string };
}

/** A server role other than the business: its operations, its profile document, its outbound services. */
export interface ServerRole {
  operations: readonly OperationDef[];
  /** The document served at /.well-known/usp. */
  profile(ctx: {
    baseUrl: string;
    mechanisms: readonly string[];
    popAlgorithms: readonly string[];
  }): Record<string, unknown>;
  env?: OperationEnv;
  /** What MCP `initialize` tells the model this server is. */
  instructions?: string;
  /** The role's own doors besides MCP and REST (before REST, which takes what no other claims). */
  doors?: (kit: {
    pipeline: Pipeline;
    scopeOf: ScopeResolver;
    clientAddress: (req: Request, env: unknown) => string | undefined;
  }) => Door[];
}

/** The options of a server of another role (the registry): no business, no definition. */
export type RoleServerOptions = Omit<
  ServerOptions,
  | 'business'
  | 'role'
  | 'definition'
  | 'definitionOrigin'
  | 'settingsOverride'
  | 'onDefinitionChanged'
  | 'resolveScope'
  | 'suspended'
> & {
  role: ServerRole;
};

/** A business's server: the composed server with its business. */
export interface UspServer extends ComposedServer {
  /** The business's latest snapshot (a new one after each definition change; never changed itself). */
  readonly biz: Business;
  /** What the business's calls run against: hand it to `pipeline.execute` to call as this business. */
  scope: BusinessScope;
  /** Where the business definition came from at start (the file imported, or the database's). */
  definitionSource: DefinitionSource;
  /**
   * Suspend the business with the operator's reason, or open it again (undefined): the next call
   * and every door's next read follow it, and the stored catalog is republished with its events.
   */
  setSuspended(reason: string | undefined): Promise<void>;
}

/** A server of another role: no business at all. */
export interface RoleServer extends ComposedServer {
  /** What the role's calls run against (its store, policy and services; no business). */
  scope: CallScope;
}

/** What a composed server gives, whichever role it serves. */
export interface ComposedServer {
  /** Where the server is reached: the configured origin, else the address it listens on (set once). */
  origin: PublicOrigin;
  store: Store;
  pipeline: Pipeline;
  /** Computed availability answers kept for reuse; undefined when turned off. */
  availabilityCache?: AvailabilityCache;
  /** The HTTP host: every door (REST, MCP, the buyer's pages) side by side, as one fetch handler. */
  app: HostApp;
  /** The webhook dispatcher (outbox to signed deliveries and MCP notifications). */
  dispatcher: WebhookDispatcher;
  /** Calls the payment provider for committed payment jobs (a provider adapter only). */
  paymentWorker?: PaymentWorker;
  /** Sends the mail outbox (when a transport is configured). */
  mailWorker?: MailWorker;
  /** Where mail goes, safe to print. */
  mailDestination?: string;
  /** The calendar poller and push worker (the business role: they follow the live business's calendars). */
  calendars?: CalendarWiring;
  /** The business's webhook signing keys. */
  keyring: SigningKeyring;
  /** Platform profile resolver (SSRF-safe fetch and cache). */
  profiles: ProfileResolver;
  /** MCP sessions (stdio and HTTP) that receive usp_webhook notifications. */
  hub: SessionHub;
  clock: Clock;
  ids: IdSource;
  profile(): Record<string, unknown>;
  /** Prometheus metrics (served at /metrics by the HTTP host). */
  metrics: ServerMetrics;
  /** The sha-256 digests of the admin API keys this server accepts (a hosting deployment's /metrics at its host). */
  adminKeyHashes: readonly string[];
  /**
   * When this server next has background work due (epoch ms on its clock): queued work of each of its
   * workers that runs, its calendars' next poll, its sweep's expiries, a daily retention sweep at the
   * latest (due-work.ts). `usp-server host serve` wakes a business it does not hold loaded then.
   */
  nextDueAt(): Promise<number>;
  /** Sweep now (expiries, reminders, retention), as the periodic sweep does; failures are logged. */
  sweepNow(): Promise<void>;
  /**
   * A work hub's ask (work-hub.ts): start each running worker whose work is due now, sweep when an
   * expiry is due (or every 10 minutes); the kinds started and when the rest is next due (due-work.ts).
   */
  runDue(): Promise<{ ran: readonly string[]; nextAt: number }>;
  /** Listen on host:port (port 0 picks a free one); resolves with the base URL. */
  listen(port: number, host?: string): Promise<string>;
  /** Stop at once: in-flight HTTP requests are cut (tests, failed starts). */
  close(): Promise<void>;
  /**
   * Stop gracefully within `timeoutMs`: refuse new connections and turn /readyz 503, let in-flight
   * calls finish, release delivery leases, close the database. Resolves true when every call in
   * flight finished in time, false when some were cut at the bound.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}
