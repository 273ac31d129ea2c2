/**
 * Everything that leaves the process as a webhook or an MCP notification: the dispatcher over the
 * outbox (signed deliveries with retries), and, with several processes on one database, the store's
 * channel that tells every process (this one included) which events to hand its MCP sessions. Also
 * the periodic sweep, whose expiries and reminders reach the outbox like any other change.
 */
import type { CallScope, Clock, EventChannel, IdSource, Logger } from '../operations/index.js';
import { sweep } from '../operations/index.js';
import { StoreUnavailable, eventBody, type OutboxEvent, type Store } from '../store/index.js';
import type { ProfileResolver } from '../security/index.js';
import type { SessionHub } from '../bindings/mcp/index.js';
import { DEFAULT_RETRY, WebhookDispatcher, httpWebhookSender, type SigningKeyring } from '../webhooks/index.js';
import type { ServerMetrics } from './metrics.js';
import type { ServerOptions } from './options.js';

export interface WebhookWiring {
  dispatcher: WebhookDispatcher;
  /** Stop listening on the store's channel (shutdown). */
  unsubscribe: () => void;
}

export function wireWebhooks(
  wh: NonNullable<ServerOptions['webhooks']>,
  deps: {
    store: Store;
    clock: Clock;
    keyring: SigningKeyring;
    resolver: ProfileResolver;
    allowLoopback: boolean;
    hub: SessionHub;
    log: Logger;
    metrics: () => ServerMetrics | undefined;
  },
): WebhookWiring {
  const { store, hub, log } = deps;
  const dispatcher = new WebhookDispatcher({
    store,
    now: () => deps.clock.now(),
    keyring: deps.keyring,
    sender: wh.sender ?? httpWebhookSender({ timeoutMs: wh.timeoutMs ?? 10_000, allowLoopback: deps.allowLoopback }),
    retry: { ...DEFAULT_RETRY, ...(wh.retry ?? {}) },
    resolveProfile: (url) => deps.resolver.resolve(url),
    allowLoopback: deps.allowLoopback,
    // One process: hand due events straight to its MCP sessions. Several processes on one database:
    // announce them on the store's channel, and every process (this one included) fans them out.
    onDue: store.channel ? undefined : (e) => hub.deliver([{ ...e, body: eventBody(e) }]),
    onAnnounce: store.channel ? (seqs) => store.channel!.publish(seqs) : undefined,
    log,
    pollMs: wh.pollMs,
    // A lease outlasts one attempt (in this process a busy target is never claimed twice anyway);
    // kept short so the deliveries of a server killed mid-attempt resume soon after a restart.
    leaseMs: 2 * (wh.timeoutMs ?? 10_000) + 5_000,
    onAttempt: (result) => deps.metrics()?.recordAttempt(result),
  });
  if (wh.enabled !== false) dispatcher.start();
  const unsubscribe = store.channel?.subscribe(function fanOut(seqs, tries = 0) {
    // No MCP session or stream here: nobody to hand them to, so no read (one per announced batch, per process).
    if (!hub.hasListeners()) return;
    store
      .read((tx) => tx.outbox.bySeq(seqs))
      .then(
        (events) => hub.deliver(events.map((e) => ({ ...e, body: eventBody(e) }))),
        (err) => {
          // Announced just as the database went away: try again for a while rather than drop them.
          if (err instanceof StoreUnavailable && tries < 10) setTimeout(() => fanOut(seqs, tries + 1), 1000).unref();
          else log.warn('could not read announced events', { error: String(err) });
        },
      );
  });
  return { dispatcher, unsubscribe: () => unsubscribe?.() };
}

type Handoff = NonNullable<Awaited<ReturnType<WebhookDispatcher['claimWithin']>>>;

/**
 * The webhooks' event channel. On SQLite the transaction that raised the events also expands them
 * into deliveries and leases what the dispatcher would lease next (`claimWithin`); once it commits
 * the dispatcher starts those attempts, with no claim transaction of its own: a booking among many
 * hosted businesses, each a file of its own, commits twice instead of three times (docs/DECISIONS.md,
 * "Deliveries leased in the booking's transaction"). On PostgreSQL, whose expansion of other events
 * holds a lock across processes, only the transaction's own events are expanded and leased, by a
 * statement in COMMIT's round trip (`leaseOwn`). Otherwise (a catalog or scheduled event, no room, a
 * stopped dispatcher) the commit nudges the dispatcher, as before.
 * `announce` tells the dispatcher and the listeners; `tell` the listeners only.
 */
export function webhookChannel(
  dispatcher: WebhookDispatcher,
  store: Store,
  announce: (events: readonly OutboxEvent[]) => void,
  tell: (events: readonly OutboxEvent[]) => void,
): EventChannel {
  const held = new WeakMap<readonly OutboxEvent[], Handoff>();
  const forget = (events: readonly OutboxEvent[]) => {
    const handoff = held.get(events);
    if (!handoff) return;
    held.delete(events);
    dispatcher.abandoned(handoff);
  };
  return {
    name: 'webhooks',
    async write(tx, { events }) {
      // The same array written again: the attempt before did not commit.
      forget(events);
      const handoff = await (store.engine === 'sqlite' ? dispatcher.claimWithin(tx) : dispatcher.leaseOwn(tx, events));
      if (handoff) held.set(events, handoff);
    },
    committed(events) {
      const handoff = held.get(events);
      if (!handoff) {
        if (events.length > 0) announce(events);
        return;
      }
      held.delete(events);
      dispatcher.committed(handoff);
      tell(events);
    },
    rolledBack: forget,
  };
}

/** What a sweep runs against and with: one scope, its clock and ids, the log and the retention. */
export interface SweeperDeps {
  scope: CallScope;
  clock: Clock;
  ids: IdSource;
  log: Logger;
  retention: Parameters<typeof sweep>[1];
}

/** One sweep of the scope now (expiries, reminders, retention); a failure is logged, never thrown. */
export function sweepOnce(deps: SweeperDeps): Promise<void> {
  const { log, scope } = deps;
  const target = {
    store: scope.store,
    biz: scope.business?.current(),
    channels: scope.channels,
    clock: deps.clock,
    ids: deps.ids,
  };
  return sweep(target, deps.retention).then(
    () => undefined,
    (err) =>
      err instanceof StoreUnavailable
        ? log.warn('sweep skipped: database unavailable', { reason: err.reason })
        : log.error('sweep failed', { error: String(err) }),
  );
}

/**
 * The periodic sweep (expiries, reminders, retention) of one scope every `intervalMs` (0: none):
 * the events it raises reach the scope's channels as a call's do. Returns its stop.
 */
export function startSweeper(intervalMs: number, deps: SweeperDeps): () => void {
  if (intervalMs <= 0) return () => {};
  const timer = setInterval(() => void sweepOnce(deps), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
