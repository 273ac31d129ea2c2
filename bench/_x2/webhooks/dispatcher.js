import { checkWebhookUrl } from './sender.js';
import { nextAttempt } from './schedule.js';
/** The JSON a webhook receiver gets: the event, its id, the resource id, a timestamp and the data. */
export function eventBody(e, extra = {}) {
    return { event: e.event, event_id: e.event_id, ...e.payload, ...extra, timestamp: new Date(e.created_ms).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}
export class WebhookDispatcher {
    o;
    timer;
    running = false;
    again = false;
    stopped = false;
    inFlight = new Map();
    constructor(o) {
        this.o = o;
    }
    start() {
        this.stopped = false;
        this.schedule(0);
    }
    /** Something was committed: look now rather than at the next poll. */
    nudge() {
        if (this.stopped)
            return;
        if (this.running)
            this.again = true;
        else
            this.schedule(0);
    }
    async stop() {
        this.stopped = true;
        if (this.timer)
            clearTimeout(this.timer);
        await Promise.allSettled([...this.inFlight.values()]);
    }
    /** One pass: expand due events, then launch due deliveries. Resolves when launched, not when finished. */
    async tick() {
        await this.expand();
        await this.launch();
    }
    /** Wait until nothing is in flight (tests). */
    async idle() {
        while (this.inFlight.size > 0)
            await Promise.allSettled([...this.inFlight.values()]);
    }
    schedule(ms) {
        if (this.stopped)
            return;
        if (this.timer)
            clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.loop(), ms);
        this.timer.unref();
    }
    async loop() {
        if (this.running || this.stopped)
            return;
        this.running = true;
        try {
            do {
                this.again = false;
                await this.tick();
            } while (this.again && !this.stopped);
        }
        catch (err) {
            this.o.log.warn('webhook dispatcher pass failed', { error: String(err) });
        }
        finally {
            this.running = false;
            this.schedule(this.o.pollMs ?? 1000);
        }
    }
    async expand() {
        for (;;) {
            const now = this.o.now();
            const events = await this.o.store.read((tx) => tx.outbox.due(now, 50));
            if (events.length === 0)
                return;
            const subscriptions = events.some((e) => e.principal === null) ? await this.o.store.read((tx) => tx.subscriptions.active()) : [];
            const rows = [];
            for (const e of events) {
                if (e.principal === null) {
                    const categories = categoryIds(e.payload.data);
                    for (const s of subscriptions) {
                        const sub = s.subscription;
                        if (sub.events && !sub.events.includes(e.event))
                            continue;
                        if (sub.categories && sub.categories.length > 0 && !sub.categories.some((c) => categories.includes(c)))
                            continue;
                        if (checkWebhookUrl(sub.callback_url, this.o.allowLoopback))
                            continue;
                        rows.push(this.row(e, sub.callback_url, sub.id, now));
                    }
                }
                else if (e.profile) {
                    const url = await this.webhookUrl(e.profile);
                    if (url)
                        rows.push(this.row(e, url, null, now));
                }
            }
            const moved = await this.o.store.transaction(async (tx) => {
                for (const r of rows)
                    await tx.webhooks.add(r);
                return tx.outbox.markDispatched(events.map((e) => e.seq));
            });
            // Only the worker that moved an event announces it: several processes may race on one outbox.
            const mine = new Set(moved);
            const announced = events.filter((e) => mine.has(e.seq));
            if (announced.length > 0 && this.o.onAnnounce)
                await this.o.onAnnounce(announced.map((e) => e.seq));
            for (const e of announced) {
                try {
                    this.o.onDue?.(e);
                }
                catch (err) {
                    this.o.log.warn('MCP fan-out failed', { error: String(err) });
                }
            }
            if (events.length < 50)
                return;
        }
    }
    row(e, url, subscriptionId, now) {
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
    async webhookUrl(profileUrl) {
        try {
            const p = await this.o.resolveProfile(profileUrl);
            if (!p.webhook_url)
                return null;
            const problem = checkWebhookUrl(p.webhook_url, this.o.allowLoopback);
            if (problem) {
                this.o.log.warn('platform webhook_url refused', { profile: profileUrl, problem });
                return null;
            }
            return p.webhook_url;
        }
        catch (err) {
            this.o.log.warn('platform profile unavailable; event goes to MCP sessions only', { profile: profileUrl, error: String(err) });
            return null;
        }
    }
    async launch() {
        const max = this.o.maxInFlight ?? 32;
        const room = max - this.inFlight.size;
        if (room <= 0)
            return;
        const now = this.o.now();
        const lease = now + (this.o.leaseMs ?? 60_000);
        const busy = [...this.inFlight.keys()];
        const due = await this.o.store.transaction((tx) => tx.webhooks.claimDue(now, room, lease, busy));
        for (const d of due) {
            const p = this.deliver(d).finally(() => {
                this.inFlight.delete(d.target_url);
                // A finished delivery may unblock the next event for that target.
                this.nudge();
            });
            this.inFlight.set(d.target_url, p);
        }
    }
    async deliver(d) {
        const attempt = d.attempts + 1;
        const at = this.o.now();
        const res = await this.o.sender.send(d.target_url, d.body, this.o.keyring.active(), at);
        const ok = res.status !== null && res.status >= 200 && res.status < 300;
        let status = 'delivered';
        let next = at;
        if (!ok) {
            const firstMs = attempt === 1 ? at : d.created_ms;
            const n = nextAttempt(this.o.retry, attempt, firstMs, this.o.now());
            if (n === null) {
                status = 'failed';
                this.o.log.warn('webhook delivery gave up', { event_id: d.event_id, target: d.target_url, attempts: attempt, error: res.error });
            }
            else {
                status = 'pending';
                next = n;
            }
        }
        await this.o.store.transaction((tx) => tx.webhooks.recordAttempt({ delivery_id: d.id, attempt, at_ms: at, status_code: res.status, latency_ms: res.latencyMs, error: res.error }, { status, next_attempt_ms: next }));
        if (status === 'pending')
            this.schedule(Math.max(0, next - this.o.now()));
    }
}
function categoryIds(data) {
    const cats = data?.categories ?? [];
    return cats.map((c) => c.id).filter((x) => typeof x === 'string');
}
//# sourceMappingURL=dispatcher.js.map