/**
 * Webhooks without a public address: `usp-server connect` reads again, every so often, the
 * bookings and waitlist entries it made or read at a business that cannot reach its webhook port,
 * and turns what changed into the events a webhook would have carried (the protocol's event names,
 * the resource as it now stands as `data`), marked `via: 'poll'`. They reach the assistant the way
 * verified webhooks do. A resource in a final state is no longer read; a read that fails is tried
 * again at the next round.
 */
import type { BusinessClient } from './client.js';
import type { WebhookEvent } from './webhooks.js';

type Kind = 'booking' | 'entry';

interface Watched {
  business: BusinessClient;
  kind: Kind;
  id: string;
  last: Record<string, any>;
}

const FINAL: Record<Kind, readonly string[]> = {
  booking: ['completed', 'no_show', 'canceled'],
  entry: ['accepted', 'removed', 'declined', 'expired'],
};

const BOOKING_STATUS_EVENT: Record<string, string> = {
  confirmed: 'booking.confirmed',
  canceled: 'booking.canceled',
  completed: 'booking.completed',
  no_show: 'booking.no_show',
  in_progress: 'booking.service_started',
};

const ENTRY_STATUS_EVENT: Record<string, string> = {
  offered: 'waitlist.spot_offered',
  accepted: 'waitlist.converted',
  expired: 'waitlist.expired',
};

/** The events the change from `before` to `now` is, by the protocol's names (none when nothing a person needs to hear changed). */
export function changesOf(kind: Kind, before: Record<string, any>, now: Record<string, any>): string[] {
  const out: string[] = [];
  if (kind === 'booking') {
    if (now.status !== before.status && BOOKING_STATUS_EVENT[now.status]) out.push(BOOKING_STATUS_EVENT[now.status]!);
    else if (
      now.status === before.status &&
      (now.slot?.id !== before.slot?.id || now.slot?.start !== before.slot?.start)
    )
      out.push('booking.rescheduled');
    if (now.dispute && !before.dispute) out.push('booking.dispute_opened');
    else if (now.dispute?.status !== before.dispute?.status && now.dispute?.status === 'resolved')
      out.push('booking.dispute_resolved');
    return out;
  }
  if (now.status !== before.status && ENTRY_STATUS_EVENT[now.status]) out.push(ENTRY_STATUS_EVENT[now.status]!);
  else if (now.status === before.status && now.position !== undefined && now.position !== before.position)
    out.push('waitlist.position_changed');
  return out;
}

export interface PollerOptions {
  intervalMs: number;
  onEvent: (event: WebhookEvent & { via: 'poll' }, business: BusinessClient) => Promise<void>;
  now?: () => number;
  log?: (line: string) => void;
}

export class Poller {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly failing = new Set<string>();

  constructor(private readonly o: PollerOptions) {}

  /** What an answer of `business` shows (a booking or entry made, read or changed by this platform): changes are told from this state on. */
  note(business: BusinessClient, data: Record<string, any> | undefined): void {
    for (const [kind, value] of [
      ['booking', data?.booking],
      ['entry', data?.entry],
    ] as const) {
      if (!value || typeof value.id !== 'string' || typeof value.status !== 'string') continue;
      const key = `${business.profileUrl} ${kind} ${value.id}`;
      if (FINAL[kind].includes(value.status)) this.watched.delete(key);
      else this.watched.set(key, { business, kind, id: value.id, last: value });
    }
  }

  /** A verified webhook about a watched resource updates what is known, so the next round does not tell it again. */
  noteEvent(business: BusinessClient, event: WebhookEvent): void {
    const data = event.data as Record<string, any> | undefined;
    if (!data?.id) return;
    if (event.event.startsWith('booking.')) this.note(business, { booking: data });
    else if (event.event.startsWith('waitlist.')) this.note(business, { entry: data });
  }

  /** How many resources are read each round. */
  get size(): number {
    return this.watched.size;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.poll(), this.o.intervalMs);
    this.timer.unref();
  }

  /** One round: every watched resource read once (a round still running is waited for, not doubled). */
  poll(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    for (const [key, w] of [...this.watched]) {
      const a =
        w.kind === 'booking'
          ? await w.business.call('get_booking', { booking_id: w.id })
          : await w.business.call('get_waitlist_entry', { entry_id: w.id });
      const data = a.data as Record<string, any>;
      const now = (w.kind === 'booking' ? data.booking : data.entry) as Record<string, any> | undefined;
      if (!a.ok || !now || now.id !== w.id) {
        if (!this.failing.has(key))
          this.o.log?.(
            `usp-server connect: could not read ${w.kind} ${w.id} at ${w.business.name} (${a.error?.code ?? 'no answer'}); trying again`,
          );
        this.failing.add(key);
        continue;
      }
      this.failing.delete(key);
      const before = w.last;
      this.note(w.business, { [w.kind]: now });
      for (const name of changesOf(w.kind, before, now)) {
        const ids =
          w.kind === 'booking' ? { booking_id: w.id } : { entry_id: w.id, service_id: String(now.service_id ?? '') };
        const event = {
          event: name,
          event_id: `poll:${w.id}:${now.revision ?? now.status}:${name}`,
          ...ids,
          timestamp: new Date((this.o.now ?? Date.now)()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          data: now,
          via: 'poll' as const,
        } as WebhookEvent & { via: 'poll' };
        await this.o.onEvent(event, w.business).catch(() => undefined);
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

/** Whether a business can reach the platform's webhook port: it listens on loopback only (no public origin) and the business is elsewhere. */
export function needsPolling(businessUrl: string, publicOrigin: string | undefined): boolean {
  if (publicOrigin) return false;
  const host = new URL(businessUrl).hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}
