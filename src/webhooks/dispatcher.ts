/**
 * The webhook dispatcher: turns committed outbox events into deliveries and delivers them.
 * - Expansion: each due event becomes one delivery per target (the owning platform's profile
 *   `webhook_url`; matching feed subscriptions for catalog events), written with the event's exact
 *   JSON body, and the event is handed to connected MCP sessions.
 * - Delivery: signed POSTs, at least once (the event_id never changes), causal order per booking
 *   and target, retries on the configured schedule, and one slow or dead endpoint never holds up
 *   another (at most one delivery in flight per target; others proceed concurrently).
 * Nothing is lost in a crash: undelivered events and deliveries are rows, picked up on restart.
 * The dispatcher is the shared leased runner (src/outbox/runner.ts) over the deliveries: this file is
 * the queue's port. Expansion runs before each pass; a delivery's lane is its target (one in flight
 * per target, and the claim skips a target in flight); the retry schedule is the spec's. While the
 * database is unavailable the dispatcher pauses (one log line), keeps polling, and resumes when a pass
 * succeeds; a delivery sent but not recorded keeps its lease and is sent again after it lapses.
 */
import {
  LeasedRunner,
  type AtCommit,
  type ClaimExtra,
  type Failed,
  type Handoff,
  type QueuePort,
} from '../outbox/index.js';
import {
  eventBody,
  type OutboxEvent,
  type Store,
  type SubscriptionRepo,
  type Tx,
  type WebhookDelivery,
  type WebhookRepo,
} from '../store/index.js';
import { isReservedName, type PlatformProfile } from '../security/index.js';
import { checkWebhookUrl, type SendResult, type WebhookSender } from './sender.js';
import { nextAttempt, type RetryPolicy } from './schedule.js';
import type { SigningKeyring } from './signing-keys.js';

export interface DispatcherLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface DispatcherOptions {
  store: Store;
  now: () => number;
  keyring: SigningKeyring;
  sender: WebhookSender;
  retry: RetryPolicy;
  /** Platform profile lookup (for `webhook_url`); failures mean no REST target for that event. */
  resolveProfile: (url: string) => Promise<PlatformProfile>;
  allowLoopback: boolean;
  /** Each event once it is due (MCP `usp_webhook` fan-out in this process). */
  onDue?: (e: OutboxEvent) => void;
  /** Tell other processes which events became due (they fan them out to their own sessions). */
  onAnnounce?: (seqs: number[]) => Promise<void>;
  log: DispatcherLog;
  /** Poll interval when idle; commits nudge the dispatcher sooner. */
  pollMs?: number;
  /** Most deliveries in flight at once. */
  maxInFlight?: number;
  /** How long a nudge waits so that one pass serves several commits (default 5 ms). */
  debounceMs?: number;
  /** A leased delivery returns to the queue if its worker vanished for this long. */
  leaseMs?: number;
  /** Told the result of every recorded attempt (metrics). */
  onAttempt?: (result: AttemptResult) => void;
}

/** How an attempt ended: sent (2xx), to be retried, given up, canceled (no webhook_url), or skipped (reserved name). */
export type AttemptResult = 'delivered' | 'retry' | 'failed' | 'canceled' | 'skipped';

/** The advisory lock one expansion of due events holds (across processes on one database). */
const EXPAND_LOCK = 'webhooks:expand';

/** Deliveries to a platform name its profile; the webhook_url is resolved when sending. */
const PROFILE_TARGET = 'profile:';

/** What a recorded attempt was, for the delivery's row and its attempt log. */
interface Attempted {
  status: 'delivered' | 'canceled' | 'skipped';
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** A POST that was not answered 2xx (or could not be made): the runner retries it on the schedule. */
class DeliveryFailed extends Error {
  constructor(
    readonly res: SendResult,
    readonly at: number,
  ) {
    super(res.error ?? `HTTP ${res.status}`);
  }
}

/** The webhook deliveries as a queue of the shared leased runner, with the expansion of due events before each pass. */
function webhookQueue(o: DispatcherOptions, logged: () => Set<string>): QueuePort<WebhookDelivery, Attempted> {
  /** Where a delivery goes now: a subscription's callback, or the owning platform's current webhook_url. */
  async function target(d: WebhookDelivery): Promise<{ url: string | null; error?: string }> {
    if (!d.target_url.startsWith(PROFILE_TARGET)) return { url: d.target_url };
    const profileUrl = d.target_url.slice(PROFILE_TARGET.length);
    let p: PlatformProfile;
    try {
      p = await o.resolveProfile(profileUrl);
    } catch (err) {
      return { url: null, error: `platform profile unavailable: ${String((err as Error).message ?? err)}` };
    }
    if (!p.webhook_url) return { url: null };
    const problem = checkWebhookUrl(p.webhook_url, o.allowLoopback);
    if (problem) {
      o.log.warn('platform webhook_url refused', { profile: profileUrl, problem });
      return { url: null };
    }
    return { url: p.webhook_url };
  }

  /**
   * The reserved name (RFC 2606, RFC 6761) `url` points at, or null. Such a target is never
   * contacted: no DNS look-up, no connection. Plain `localhost` stays usable when loopback
   * targets are allowed (development).
   */
  function reservedHost(url: string): string | null {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return null;
    }
    if (o.allowLoopback && host.toLowerCase() === 'localhost') return null;
    return isReservedName(host) ? host : null;
  }

  /** A delivery to a reserved name is skipped; the log says so once per target. */
  function skip(d: WebhookDelivery, at: number, host: string): Attempted {
    // Reserved-name targets already logged (each once per dispatcher; bounded).
    const skippedLogged = logged();
    if (!skippedLogged.has(d.target_url)) {
      if (skippedLogged.size >= 1000) skippedLogged.clear();
      skippedLogged.add(d.target_url);
      o.log.warn('webhook target is a reserved name (RFC 2606, RFC 6761): its deliveries are skipped', {
        target: d.target_url,
        host,
      });
    }
    return { status: 'skipped', at, status_code: null, latency_ms: 0, error: `skipped: ${host} is a reserved name` };
  }

  return {
    name: 'webhook dispatcher',
    noun: 'webhook delivery',
    // A lease outlasts one attempt; a busy target is never claimed twice by this process anyway.
    leaseMs: o.leaseMs ?? 60_000,
    batch: o.maxInFlight ?? 32,
    concurrency: o.maxInFlight ?? 32,
    // The spec's schedule, from the delivery's first attempt (its creation, for later ones).
    retryAt: (d, end) => nextAttempt(o.retry, end.attempts, end.attempts === 1 ? end.startedMs : d.created_ms, end.now),
    describe: (d) => ({ event_id: d.event_id, target: d.target_url }),
    // Due events become deliveries in the claim's own transaction: a pass after a booking is one
    // transaction, not two (docs/DECISIONS.md, "Deliveries expanded in the claim's transaction").
    withClaim: {
      run: (tx, now) => expandIn(tx, o, now),
      standalone: () => expand(o),
    },
    lane: (d) => d.target_url,
    claim: (tx, now, limit, leaseUntilMs, busy) => tx.webhooks.claimDue(now, limit, leaseUntilMs, busy),
    async attempt(d) {
      const at = o.now();
      // A profile or callback on a reserved name is skipped before its profile is fetched.
      const named = reservedHost(
        d.target_url.startsWith(PROFILE_TARGET) ? d.target_url.slice(PROFILE_TARGET.length) : d.target_url,
      );
      if (named) return skip(d, at, named);
      const t = await target(d);
      const hookName = t.url ? reservedHost(t.url) : null;
      if (hookName) return skip(d, at, hookName);
      // The platform registers no webhook_url: it hears about the event through MCP, if at all.
      if (t.url === null && !t.error)
        return {
          status: 'canceled',
          at,
          status_code: null,
          latency_ms: 0,
          error: 'the platform profile registers no webhook_url',
        };
      const res = t.url
        ? await o.sender.send(t.url, d.body, o.keyring.active(at), at)
        : { status: null, latencyMs: 0, error: t.error ?? 'no target' };
      if (res.status === null || res.status < 200 || res.status >= 300) throw new DeliveryFailed(res, at);
      return { status: 'delivered', at, status_code: res.status, latency_ms: res.latencyMs, error: res.error };
    },
    failure: (err) => ({
      permanent: false,
      error: err instanceof DeliveryFailed ? (err.res.error ?? err.message) : String(err),
    }),
    done: (tx, d, a) =>
      tx.webhooks.recordAttempt(
        {
          delivery_id: d.id,
          attempt: d.attempts + 1,
          at_ms: a.at,
          status_code: a.status_code,
          latency_ms: a.latency_ms,
          error: a.error,
        },
        { status: a.status, next_attempt_ms: a.at },
      ),
    failed(tx, d, end: Failed) {
      const sent = end.cause instanceof DeliveryFailed ? end.cause : null;
      const at = sent?.at ?? end.startedMs;
      return tx.webhooks.recordAttempt(
        {
          delivery_id: d.id,
          attempt: end.attempts,
          at_ms: at,
          status_code: sent?.res.status ?? null,
          latency_ms: sent?.res.latencyMs ?? 0,
          error: sent?.res.error ?? end.error,
        },
        { status: end.giveUp ? 'failed' : 'pending', next_attempt_ms: end.giveUp ? at : end.retryAtMs },
      );
    },
    release: (tx, ds) => tx.webhooks.releaseLeases(ds.map((d) => d.id)),
    recorded: (_d, end) => o.onAttempt?.('result' in end ? end.result.status : end.failed.giveUp ? 'failed' : 'retry'),
  };
}

/** The dispatcher: the shared leased runner over the webhook deliveries. */
export class WebhookDispatcher extends LeasedRunner<WebhookDelivery, Attempted> {
  constructor(private readonly options: DispatcherOptions) {
    // Kept by the dispatcher: its port is built again after an idle spell (runner.ts).
    let skippedLogged: Set<string> | undefined;
    super(() => webhookQueue(options, () => (skippedLogged ??= new Set())), {
      store: options.store,
      now: options.now,
      log: options.log,
      pollMs: options.pollMs,
      debounceMs: options.debounceMs,
    });
  }

  /**
   * PostgreSQL: the events `tx` raised, each due now for its owner's platform, turned into their
   * deliveries by a statement in COMMIT's round trip, leased to this process where their lanes are
   * free, so that no dispatcher pass (lock, read, insert, mark, commit, notify) follows each booking
   * (docs/DECISIONS.md, "A booking's own deliveries, written with its COMMIT"). A reminder scheduled
   * later stays pending for its time; a catalog event due now gets a pass once committed. Undefined
   * when the store cannot, or no event is due now for a platform: then the commit nudges, as before.
   */
  leaseOwn(tx: Tx, events: readonly OutboxEvent[]): Promise<Handoff<WebhookDelivery> | undefined> {
    const o = this.options;
    const add = tx.webhooks.addAtCommit;
    const now = o.now();
    const own = events.filter((e) => e.principal !== null && e.profile && e.due_ms <= now);
    if (!add || own.length === 0) return Promise.resolve(undefined);
    const passDue = events.some((e) => !own.includes(e) && e.due_ms <= now);
    return this.claimAtCommit(async (at, room, leaseUntilMs, busy) => {
      const taken = new Set(busy);
      const rows = own.map((e) => {
        const d = { ...deliveryRow({ ...e, seq: -1 }, PROFILE_TARGET + e.profile, null, at), lease: false };
        // One per lane, as a claim takes them: the first of each free target, within the room.
        if (!taken.has(d.target_url) && taken.size - busy.length < room) {
          taken.add(d.target_url);
          d.lease = true;
        }
        return d;
      });
      const lanes = rows.filter((r) => r.lease).map((r) => placeholder(r, at));
      const settled = add.call(tx.webhooks, rows, at, leaseUntilMs).then((answer): AtCommit<WebhookDelivery> => {
        const seqOf = new Map(answer.map((a) => [a.event_id, a.seq]));
        const due: WebhookDelivery[] & { leftBehind?: boolean } = answer.flatMap((a) =>
          a.leased && a.delivery ? [a.delivery] : [],
        );
        due.leftBehind = answer.some((a) => a.delivery && !a.leased);
        const moved = own.flatMap((e) => (seqOf.has(e.event_id) ? [{ ...e, seq: seqOf.get(e.event_id)! }] : []));
        // What a pass would have done after its commit: announce them. A delivery left unleased, or
        // another event due now, gets a pass.
        const extra: ClaimExtra = {
          // Announced to the other processes with COMMIT already (NOTIFY): only this one's sessions are left.
          after: () =>
            announce(
              o,
              moved,
              moved.map((e) => e.seq),
              answer.every((a) => a.announced),
            ),
          more: due.leftBehind || passDue,
        };
        return { due, extra };
      });
      return { lanes, settled };
    });
  }
}

/** A delivery as it will be inserted (its id and seq unknown until COMMIT answers): what it holds meanwhile is its lane. */
function placeholder(r: ReturnType<typeof deliveryRow>, now: number): WebhookDelivery {
  return {
    ...r,
    id: -1,
    status: 'pending',
    attempts: 0,
    next_attempt_ms: now,
    created_ms: now,
    delivered_ms: null,
    last_status: null,
    last_error: null,
    last_latency_ms: null,
  };
}

/** Due events expanded by one transaction at most. */
const EXPAND_BATCH = 50;

/** Turn due events into their deliveries, and hand each to the MCP sessions (transactions of their own). */
async function expand(o: DispatcherOptions): Promise<void> {
  for (;;) {
    const now = o.now();
    const expanded = await o.store.transaction((tx) => expandIn(tx, o, now));
    await expanded.after?.();
    if (!expanded.more) return;
  }
}

/**
 * One batch of due events turned into deliveries inside `tx`; `after` (once it committed) announces
 * them and hands them to the MCP sessions; `more` when a full batch was read.
 */
async function expandIn(tx: Tx, o: DispatcherOptions, now: number): Promise<ClaimExtra> {
  // One expansion at a time across every process on the database: a process waiting here then
  // reads what the one before it left pending, instead of all of them reading the same events
  // and racing to expand them (the losers' work thrown away, and more passes the more processes).
  await tx.lock([EXPAND_LOCK]);
  const due = await tx.outbox.due(now, EXPAND_BATCH);
  if (due.length === 0) return {};
  const subscriptions = due.some((e) => e.principal === null) ? await tx.subscriptions.active() : [];
  for (const r of deliveryRows(due, subscriptions, now, o.allowLoopback)) await tx.webhooks.add(r);
  const moved = await tx.outbox.markDispatched(due.map((e) => e.seq));
  return { after: () => announce(o, due, moved), more: due.length === EXPAND_BATCH };
}

/** Only the worker that moved an event announces it: several processes may race on one outbox. */
async function announce(
  o: DispatcherOptions,
  events: ReadonlyArray<OutboxEvent & { seq: number }>,
  moved: readonly number[],
  published = false,
): Promise<void> {
  const mine = new Set(moved);
  const announced = events.filter((e) => mine.has(e.seq));
  if (announced.length > 0 && o.onAnnounce && !published) await o.onAnnounce(announced.map((e) => e.seq));
  for (const e of announced) {
    try {
      o.onDue?.(e);
    } catch (err) {
      o.log.warn('MCP fan-out failed', { error: String(err) });
    }
  }
}

/** The deliveries of due events: one per matching catalog subscription, or one to the owning platform. */
function deliveryRows(
  events: ReadonlyArray<OutboxEvent & { seq: number }>,
  subscriptions: Awaited<ReturnType<SubscriptionRepo['active']>>,
  now: number,
  allowLoopback: boolean,
) {
  const rows: Array<Parameters<WebhookRepo['add']>[0]> = [];
  for (const e of events) {
    if (e.principal === null) {
      const categories = categoryIds(e.payload.data);
      for (const s of subscriptions) {
        const sub = s.subscription;
        if (sub.events && !sub.events.includes(e.event)) continue;
        if (sub.categories && sub.categories.length > 0 && !sub.categories.some((c) => categories.includes(c)))
          continue;
        if (checkWebhookUrl(sub.callback_url, allowLoopback)) continue;
        rows.push(deliveryRow(e, sub.callback_url, sub.id, now));
      }
    } else if (e.profile) {
      // The platform's webhook_url is looked up when sending, so an unreachable profile is
      // retried on the delivery schedule instead of losing the event.
      rows.push(deliveryRow(e, PROFILE_TARGET + e.profile, null, now));
    }
  }
  return rows;
}

function deliveryRow(e: OutboxEvent & { seq: number }, url: string, subscriptionId: string | null, now: number) {
  return {
    event_id: e.event_id,
    event: e.event,
    seq: e.seq,
    order_key: e.order_key,
    target_url: url,
    subscription_id: subscriptionId,
    body: JSON.stringify(eventBody(e, subscriptionId ? { subscription_id: subscriptionId } : {})),
    next_attempt_ms: now,
    created_ms: now,
  };
}

function categoryIds(data: unknown): string[] {
  const cats = (data as { categories?: Array<{ id?: string }> } | undefined)?.categories ?? [];
  return cats.map((c) => c.id).filter((x): x is string => typeof x === 'string');
}
