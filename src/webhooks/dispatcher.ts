/**
 * The webhook dispatcher: turns committed outbox events into deliveries and delivers them.
 * - Expansion: each due event becomes one delivery per target (the owning platform's profile
 *   `webhook_url`; matching feed subscriptions for catalog events), written with the event's exact
 *   JSON body, and the event is handed to connected MCP sessions.
 * - Delivery: signed POSTs, at least once (the event_id never changes), causal order per booking
 *   and target, retries on the configured schedule, and one slow or dead endpoint never holds up
 *   another (at most one delivery in flight per target; others proceed concurrently).
 * Nothing is lost in a crash: undelivered events and deliveries are rows, picked up on restart.
 * While the database is unavailable the dispatcher pauses (one log line), keeps polling, and resumes
 * when a pass succeeds; a delivery sent but not recorded keeps its lease and is sent again after it lapses.
 */
import { BackgroundLoop } from '../outbox/index.js';
import { eventBody, type OutboxEvent, type Store, type SubscriptionRepo, type WebhookDelivery, type WebhookRepo } from '../store/index.js';
import { isReservedName, type PlatformProfile } from '../security/index.js';
import { checkWebhookUrl, type WebhookSender } from './sender.js';
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

export class WebhookDispatcher {
  private readonly loop: BackgroundLoop;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Ids of the deliveries in flight (their leases are released if a stop cuts them short). */
  private readonly leased = new Set<number>();
  /** The claim of due deliveries under way, if any (stop() waits for it). */
  private claiming: Promise<unknown> | undefined;
  /** Reserved-name targets already logged (each is logged once per process; bounded). */
  private readonly skippedLogged = new Set<string>();
  constructor(private readonly o: DispatcherOptions) {
    this.loop = new BackgroundLoop({ name: 'webhook dispatcher', pass: () => this.tick(), log: o.log, pollMs: o.pollMs, debounceMs: o.debounceMs });
  }

  start(): void {
    this.loop.start();
  }

  /** Something was committed: look soon. A few milliseconds' wait lets one pass serve a burst of commits. */
  nudge(): void {
    this.loop.nudge();
  }

  /**
   * Stop; in-flight deliveries get a moment to finish. The leases of any cut short are released, so
   * another process (or the next run) sends them at once rather than after the lease lapses.
   */
  async stop(graceMs = 1000): Promise<void> {
    await this.loop.stop();
    await this.claiming?.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    if (this.leased.size > 0) {
      const ids = [...this.leased];
      await this.o.store
        .transaction((tx) => tx.webhooks.releaseLeases(ids))
        .catch((err) => this.o.log.warn('could not release delivery leases; they lapse by themselves', { deliveries: ids.length, error: String(err) }));
    }
  }

  /** Started and not stopped. */
  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  /** One pass: expand due events, then launch due deliveries. Resolves when launched, not when finished. */
  async tick(): Promise<void> {
    await this.expand();
    await this.launch();
  }

  /** True while the database is unavailable to the dispatcher (it retries every poll). */
  get isPaused(): boolean {
    return this.loop.isPaused;
  }

  /** Wait until nothing is in flight (tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  private async expand(): Promise<void> {
    for (;;) {
      const now = this.o.now();
      const { events, moved } = await this.o.store.transaction(async (tx) => {
        // One expansion at a time across every process on the database: a process waiting here then
        // reads what the one before it left pending, instead of all of them reading the same events
        // and racing to expand them (the losers' work thrown away, and more passes the more processes).
        await tx.lock([EXPAND_LOCK]);
        const due = await tx.outbox.due(now, 50);
        if (due.length === 0) return { events: due, moved: [] };
        const subscriptions = due.some((e) => e.principal === null) ? await tx.subscriptions.active() : [];
        for (const r of this.rows(due, subscriptions, now)) await tx.webhooks.add(r);
        return { events: due, moved: await tx.outbox.markDispatched(due.map((e) => e.seq)) };
      });
      if (events.length === 0) return;
      // Only the worker that moved an event announces it: several processes may race on one outbox.
      const mine = new Set(moved);
      const announced = events.filter((e) => mine.has(e.seq));
      if (announced.length > 0 && this.o.onAnnounce) await this.o.onAnnounce(announced.map((e) => e.seq));
      for (const e of announced) {
        try {
          this.o.onDue?.(e);
        } catch (err) {
          this.o.log.warn('MCP fan-out failed', { error: String(err) });
        }
      }
      if (events.length < 50) return;
    }
  }

  /** The deliveries of due events: one per matching catalog subscription, or one to the owning platform. */
  private rows(events: ReadonlyArray<OutboxEvent & { seq: number }>, subscriptions: Awaited<ReturnType<SubscriptionRepo['active']>>, now: number) {
    const rows: Array<Parameters<WebhookRepo['add']>[0]> = [];
    for (const e of events) {
      if (e.principal === null) {
        const categories = categoryIds(e.payload.data);
        for (const s of subscriptions) {
          const sub = s.subscription;
          if (sub.events && !sub.events.includes(e.event)) continue;
          if (sub.categories && sub.categories.length > 0 && !sub.categories.some((c) => categories.includes(c))) continue;
          if (checkWebhookUrl(sub.callback_url, this.o.allowLoopback)) continue;
          rows.push(this.row(e, sub.callback_url, sub.id, now));
        }
      } else if (e.profile) {
        // The platform's webhook_url is looked up when sending, so an unreachable profile is
        // retried on the delivery schedule instead of losing the event.
        rows.push(this.row(e, PROFILE_TARGET + e.profile, null, now));
      }
    }
    return rows;
  }

  private row(e: OutboxEvent & { seq: number }, url: string, subscriptionId: string | null, now: number) {
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

  /** The platform's webhook_url, null when it registers none (or one we refuse); throws when the profile is unreachable. */
  private async webhookUrl(profileUrl: string): Promise<string | null> {
    const p = await this.o.resolveProfile(profileUrl);
    if (!p.webhook_url) return null;
    const problem = checkWebhookUrl(p.webhook_url, this.o.allowLoopback);
    if (problem) {
      this.o.log.warn('platform webhook_url refused', { profile: profileUrl, problem });
      return null;
    }
    return p.webhook_url;
  }

  /** Where a delivery goes now: a subscription's callback, or the owning platform's current webhook_url. */
  private async target(d: WebhookDelivery): Promise<{ url: string | null; error?: string }> {
    if (!d.target_url.startsWith(PROFILE_TARGET)) return { url: d.target_url };
    try {
      return { url: await this.webhookUrl(d.target_url.slice(PROFILE_TARGET.length)) };
    } catch (err) {
      return { url: null, error: `platform profile unavailable: ${String((err as Error).message ?? err)}` };
    }
  }

  private async launch(): Promise<void> {
    const max = this.o.maxInFlight ?? 32;
    const room = max - this.inFlight.size;
    if (room <= 0) return;
    const now = this.o.now();
    const lease = now + (this.o.leaseMs ?? 60_000);
    const busy = [...this.inFlight.keys()];
    if (!this.loop.isRunning) return;
    // The claimed deliveries count as leased the moment the claim commits, and stop() waits for a
    // claim under way: a stop that lands meanwhile releases them with the rest, instead of leaving
    // them leased until the lease lapses.
    const claim = this.o.store
      .transaction((tx) => tx.webhooks.claimDue(now, room, lease, busy))
      .then((due) => {
        for (const d of due) this.leased.add(d.id);
        return due;
      });
    this.claiming = claim;
    const due = await claim.finally(() => {
      if (this.claiming === claim) this.claiming = undefined;
    });
    if (!this.loop.isRunning) return;
    for (const d of due) {
      const p = this.deliver(d)
        .catch((err) => this.o.log.warn('webhook delivery could not be recorded; it will be retried', { event_id: d.event_id, error: String(err) }))
        .finally(() => {
          this.leased.delete(d.id);
          this.inFlight.delete(d.target_url);
          // A finished delivery may unblock the next event for that target.
          this.nudge();
        });
      this.inFlight.set(d.target_url, p);
    }
  }

  /**
   * The reserved name (RFC 2606, RFC 6761) `url` points at, or null. Such a target is never
   * contacted: no DNS look-up, no connection. Plain `localhost` stays usable when loopback
   * targets are allowed (development).
   */
  private reservedHost(url: string): string | null {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return null;
    }
    if (this.o.allowLoopback && host.toLowerCase() === 'localhost') return null;
    return isReservedName(host) ? host : null;
  }

  /** Record a delivery to a reserved name as skipped, and say so in the log once per target. */
  private async skip(d: WebhookDelivery, attempt: number, at: number, host: string): Promise<void> {
    const key = d.target_url;
    if (!this.skippedLogged.has(key)) {
      if (this.skippedLogged.size >= 1000) this.skippedLogged.clear();
      this.skippedLogged.add(key);
      this.o.log.warn('webhook target is a reserved name (RFC 2606, RFC 6761): its deliveries are skipped', { target: d.target_url, host });
    }
    await this.o.store.transaction((tx) =>
      tx.webhooks.recordAttempt(
        { delivery_id: d.id, attempt, at_ms: at, status_code: null, latency_ms: 0, error: `skipped: ${host} is a reserved name` },
        { status: 'skipped', next_attempt_ms: at },
      ),
    );
    this.o.onAttempt?.('skipped');
  }

  private async deliver(d: WebhookDelivery): Promise<void> {
    const attempt = d.attempts + 1;
    const at = this.o.now();
    // A profile or callback on a reserved name is skipped before its profile is fetched.
    const named = this.reservedHost(d.target_url.startsWith(PROFILE_TARGET) ? d.target_url.slice(PROFILE_TARGET.length) : d.target_url);
    if (named) return this.skip(d, attempt, at, named);
    const target = await this.target(d);
    const hookName = target.url ? this.reservedHost(target.url) : null;
    if (hookName) return this.skip(d, attempt, at, hookName);
    if (target.url === null && !target.error) {
      // The platform registers no webhook_url: it hears about the event through MCP, if at all.
      await this.o.store.transaction((tx) =>
        tx.webhooks.recordAttempt(
          { delivery_id: d.id, attempt, at_ms: at, status_code: null, latency_ms: 0, error: 'the platform profile registers no webhook_url' },
          { status: 'canceled', next_attempt_ms: at },
        ),
      );
      this.o.onAttempt?.('canceled');
      return;
    }
    const res = target.url ? await this.o.sender.send(target.url, d.body, this.o.keyring.active(at), at) : { status: null, latencyMs: 0, error: target.error ?? 'no target' };
    const ok = res.status !== null && res.status >= 200 && res.status < 300;
    let status: WebhookDelivery['status'] = 'delivered';
    let next = at;
    if (!ok) {
      const firstMs = attempt === 1 ? at : d.created_ms;
      const n = nextAttempt(this.o.retry, attempt, firstMs, this.o.now());
      if (n === null) {
        status = 'failed';
        this.o.log.warn('webhook delivery gave up', { event_id: d.event_id, target: d.target_url, attempts: attempt, error: res.error });
      } else {
        status = 'pending';
        next = n;
      }
    }
    await this.o.store.transaction((tx) =>
      tx.webhooks.recordAttempt({ delivery_id: d.id, attempt, at_ms: at, status_code: res.status, latency_ms: res.latencyMs, error: res.error }, { status, next_attempt_ms: next }),
    );
    this.o.onAttempt?.(status === 'pending' ? 'retry' : status === 'failed' ? 'failed' : 'delivered');
    if (status === 'pending') this.loop.schedule(Math.max(0, next - this.o.now()));
  }
}

function categoryIds(data: unknown): string[] {
  const cats = (data as { categories?: Array<{ id?: string }> } | undefined)?.categories ?? [];
  return cats.map((c) => c.id).filter((x): x is string => typeof x === 'string');
}
