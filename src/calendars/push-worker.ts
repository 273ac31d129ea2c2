/**
 * The CalDAV push worker: bookings on a resource with a writable CalDAV calendar become events
 * there. The queue is `calendar_push_jobs`, written by a trigger in the booking's own transaction
 * (so no change is lost); a job says "bring booking B up to date", and the worker reads the
 * booking as it is now: an event under one UID per booking is PUT (created, or moved on reschedule:
 * same UID, same URL, higher SEQUENCE), and removed once the booking is canceled. A PUT of the same
 * body is skipped (fingerprint), and a repeated PUT or DELETE after a crash lands on the same URL, so
 * a booking is never in a calendar twice. A failed push is retried with backoff and its error stays
 * on the job (dashboard, metrics) until it succeeds.
 */
import { createHash } from 'node:crypto';
import { deleteCalendarObject, updateCalendarObject } from 'tsdav';
import { bookingEventUid, calendarObject, isBookingEventUid, type BookingRecord } from '../domain/index.js';
import { BackgroundLoop, type LoopLog } from '../outbox/index.js';
import type { Store } from '../store/index.js';
import { DEFAULT_FETCH_LIMITS, FeedRefused, pinnedFetch, type FetchLimits } from './fetch.js';
import { basicAuth, type CalendarFeed } from './sources.js';

/** The UID of a pushed event: recognisable, so the poller never reads our own events back as busy time. */
export const pushedUid = bookingEventUid;
export const isPushedUid = isBookingEventUid;

const RETRY_MS = [10_000, 60_000, 300_000, 1_800_000, 3_600_000];

export interface PushWorkerOptions {
  store: Store;
  /** The writable CalDAV calendars: a list, or read afresh before every pass (the live business's). */
  calendars: readonly CalendarFeed[] | (() => readonly CalendarFeed[]);
  /** Brings the business up to date before a pass (another process may have edited it). */
  refresh?: () => Promise<void>;
  now: () => number;
  log: LoopLog;
  /** The event's title and description for a booking (the service, and as much of the buyer as the business chose). */
  eventText: (rec: BookingRecord) => { summary: string; description?: string };
  pollMs?: number;
  limits?: Partial<FetchLimits>;
  env?: NodeJS.ProcessEnv;
  /** The business whose calendar secrets (`USP_CALENDAR_SECRET_<BUSINESS>__…`) alone may be read. */
  businessId: string;
}

export class CalendarPushWorker {
  private readonly loop: BackgroundLoop;
  private readonly limits: FetchLimits;
  private targets?: string;

  constructor(private readonly o: PushWorkerOptions) {
    this.limits = { ...DEFAULT_FETCH_LIMITS, ...o.limits };
    this.loop = new BackgroundLoop({ name: 'calendar push worker', pass: async () => void (await this.tick()), log: o.log, pollMs: o.pollMs ?? 5000 });
  }

  /** Tell the store whose bookings to queue, then push due jobs now and on every poll. */
  async start(): Promise<void> {
    await this.prepare();
    this.loop.start();
  }

  private get calendars(): readonly CalendarFeed[] {
    return typeof this.o.calendars === 'function' ? this.o.calendars() : this.o.calendars;
  }

  /** The resources whose bookings the trigger queues: those with a writable calendar now (written when they change). */
  async prepare(): Promise<void> {
    const targets = [...new Set(this.calendars.map((c) => c.resourceId))].sort();
    if (targets.join(',') === this.targets) return;
    await this.o.store.transaction((tx) => tx.calendars.setPushTargets(targets));
    this.targets = targets.join(',');
  }

  nudge(): void {
    this.loop.nudge();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass: every due job (tests step it). Returns how many jobs were finished. */
  async tick(): Promise<number> {
    await this.o.refresh?.();
    await this.prepare();
    // No writable calendar: the trigger queues nothing, so there is nothing to lease.
    if (this.targets === '') return 0;
    const now = this.o.now();
    const jobs = await this.o.store.transaction((tx) => tx.calendars.duePushes(now, 20, now + 120_000));
    let done = 0;
    for (const job of jobs) {
      try {
        await this.push(job.booking_id);
        await this.o.store.transaction((tx) => tx.calendars.finishPush(job.booking_id, job.version));
        done++;
      } catch (err) {
        if ((err as { storeUnavailable?: boolean }).storeUnavailable) throw err;
        const error = String((err as Error).message ?? err)
          .replace(/https?:\/\/\S+/g, '<url>')
          .slice(0, 200);
        const attempts = job.attempts + 1;
        this.o.log.warn('calendar push failed: retried later', { booking_id: job.booking_id, attempts, error });
        await this.o.store.transaction((tx) => tx.calendars.failPush(job.booking_id, attempts, now + RETRY_MS[Math.min(attempts - 1, RETRY_MS.length - 1)], error));
      }
    }
    return done;
  }

  /** Bring one booking's events in every writable calendar in line with the booking. */
  private async push(bookingId: string): Promise<void> {
    const { rec, pushed } = await this.o.store.read(async (tx) => ({ rec: await tx.bookings.get(bookingId), pushed: await tx.calendars.pushedEvents(bookingId) }));
    for (const cal of this.calendars) {
      const auth = basicAuth(cal, this.o.env ?? process.env, this.o.businessId);
      const headers: Record<string, string> = auth ? { authorization: auth } : {};
      const fetch = pinnedFetch(this.limits);
      const existing = pushed.find((p) => p.calendar_key === cal.key);
      const wanted = rec !== null && rec.priv.resource_ids.includes(cal.resourceId) && rec.booking.status !== 'canceled';
      if (!wanted) {
        if (!existing) continue;
        const res = await deleteCalendarObject({ calendarObject: { url: existing.href, etag: undefined }, headers, fetch });
        if (!res.ok && res.status !== 404 && res.status !== 410) throw new FeedRefused(`DELETE answered HTTP ${res.status}`);
        await this.o.store.transaction((tx) => tx.calendars.deletePushedEvent(bookingId, cal.key));
        continue;
      }
      const body = calendarObject(
        [
          {
            uid: pushedUid(bookingId),
            sequence: rec.priv.reschedule_count,
            canceled: false,
            startMs: rec.priv.start_ms,
            endMs: rec.priv.end_ms,
            stampMs: this.o.now(),
            ...this.o.eventText(rec),
          },
        ],
        '-//usp-server//calendar push//EN',
        null, // a stored calendar object carries no METHOD (RFC 4791 4.1)
      );
      const fingerprint = createHash('sha256')
        .update(body.replace(/^DTSTAMP:.*\r\n/m, ''))
        .digest('hex');
      if (existing?.fingerprint === fingerprint) continue;
      const href = existing?.href ?? new URL(`${encodeURIComponent(bookingId)}.ics`, cal.url).href;
      const res = await updateCalendarObject({
        calendarObject: { url: href, data: body, etag: undefined },
        headers: { ...headers, 'content-type': 'text/calendar; charset=utf-8' },
        fetch,
      });
      if (!res.ok) throw new FeedRefused(`PUT answered HTTP ${res.status}`);
      await this.o.store.transaction((tx) => tx.calendars.putPushedEvent({ booking_id: bookingId, calendar_key: cal.key, href, fingerprint }));
    }
  }
}
