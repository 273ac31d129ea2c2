/**
 * The CalDAV push worker: bookings on a resource with a writable CalDAV calendar become events
 * there. The queue is `calendar_push_jobs`, written by a trigger in the booking's own transaction
 * (so no change is lost); a job says "bring booking B up to date", and the worker reads the
 * booking as it is now: an event under one UID per booking is PUT (created, or moved on reschedule:
 * same UID, same URL, higher SEQUENCE), and removed once the booking is canceled. A PUT of the same
 * body is skipped (fingerprint), and a repeated PUT or DELETE after a crash lands on the same URL, so
 * a booking is never in a calendar twice. A failed push is retried with backoff and its error stays
 * on the job (dashboard, metrics) until it succeeds. The worker is the shared leased runner
 * (src/outbox/runner.ts) over the jobs: leased (a crashed process's jobs are taken over once their
 * lease lapses), a few bookings pushed at once; this file is the queue's port.
 */
import { createHash } from 'node:crypto';
import { bookingEventUid, calendarObject, isBookingEventUid, type BookingRecord } from '../domain/index.js';
import { LeasedRunner, type LoopLog, type QueuePort } from '../outbox/index.js';
import type { CalendarPushJob, Store } from '../store/index.js';
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
  /** A leased job returns to the queue after this long (default 2 minutes). */
  leaseMs?: number;
  /** Most bookings pushed at once (default 4). */
  concurrency?: number;
  limits?: Partial<FetchLimits>;
  env?: NodeJS.ProcessEnv;
  /** The business whose calendar secrets (`USP_CALENDAR_SECRET_<BUSINESS>__…`) alone may be read. */
  businessId: string;
}

/** The resources whose bookings the trigger queues: those with a writable calendar now (written when they change). */
function pushTargets(o: PushWorkerOptions) {
  let written: string | undefined;
  return {
    /** Write the targets when they changed; says them (comma-separated, '' for none). */
    async prepare(): Promise<string> {
      const list = typeof o.calendars === 'function' ? o.calendars() : o.calendars;
      const targets = [...new Set(list.map((c) => c.resourceId))].sort();
      if (targets.join(',') !== written) {
        await o.store.transaction((tx) => tx.calendars.setPushTargets(targets));
        written = targets.join(',');
      }
      return written;
    },
  };
}

/** The push jobs as a queue of the shared leased runner: a job brings one booking's events up to date. */
function pushQueue(o: PushWorkerOptions, targets: ReturnType<typeof pushTargets>): QueuePort<CalendarPushJob, void> {
  const limits = { ...DEFAULT_FETCH_LIMITS, ...o.limits };
  const calendars = (): readonly CalendarFeed[] => (typeof o.calendars === 'function' ? o.calendars() : o.calendars);
  return {
    name: 'calendar push worker',
    noun: 'calendar push',
    leaseMs: o.leaseMs ?? 120_000,
    batch: 20,
    // Pushes of different bookings side by side: one slow calendar server holds up a few lanes, not the queue.
    concurrency: o.concurrency ?? 4,
    // Retried until it succeeds (its error stays on the job meanwhile).
    retryAt: (_job, end) => end.now + RETRY_MS[Math.min(end.attempts - 1, RETRY_MS.length - 1)],
    describe: (job) => ({ booking_id: job.booking_id }),
    async beforePass() {
      await o.refresh?.();
      // No writable calendar: the trigger queues nothing, so there is nothing to lease.
      return (await targets.prepare()) !== '';
    },
    claim: (tx, now, limit, leaseUntilMs) => tx.calendars.duePushes(now, limit, leaseUntilMs),
    attempt: (job) => push(o, calendars(), limits, job.booking_id),
    failure: (err) => ({
      permanent: false,
      error: String((err as Error).message ?? err)
        .replace(/https?:\/\/\S+/g, '<url>')
        .slice(0, 200),
    }),
    done: (tx, job) => tx.calendars.finishPush(job.booking_id, job.version),
    failed: (tx, job, end) => tx.calendars.failPush(job.booking_id, end.attempts, end.retryAtMs, end.error),
  };
}

/** The push worker: the shared leased runner over the calendar push jobs. */
export class CalendarPushWorker extends LeasedRunner<CalendarPushJob, void> {
  private readonly targets: ReturnType<typeof pushTargets>;

  constructor(o: PushWorkerOptions) {
    const targets = pushTargets(o);
    super(() => pushQueue(o, targets), { store: o.store, now: o.now, log: o.log, pollMs: o.pollMs ?? 5000 });
    this.targets = targets;
  }

  /** Tell the store whose bookings to queue, then push due jobs now and on every poll. */
  override async start(): Promise<void> {
    await this.prepare();
    super.start();
  }

  /** Tell the store whose bookings to queue (the trigger needs them even when the worker is stepped by hand). */
  async prepare(): Promise<void> {
    await this.targets.prepare();
  }
}

/** Bring one booking's events in every writable calendar in line with the booking. */
async function push(
  o: PushWorkerOptions,
  calendars: readonly CalendarFeed[],
  limits: FetchLimits,
  bookingId: string,
): Promise<void> {
  const { rec, pushed } = await o.store.read(async (tx) => ({
    rec: await tx.bookings.get(bookingId),
    pushed: await tx.calendars.pushedEvents(bookingId),
  }));
  for (const cal of calendars) {
    const auth = basicAuth(cal, o.env ?? process.env, o.businessId);
    const headers: Record<string, string> = auth ? { authorization: auth } : {};
    const fetch = pinnedFetch(limits);
    const existing = pushed.find((p) => p.calendar_key === cal.key);
    const wanted = rec !== null && rec.priv.resource_ids.includes(cal.resourceId) && rec.booking.status !== 'canceled';
    if (!wanted) {
      if (!existing) continue;
      const { deleteCalendarObject } = await import('tsdav');
      const res = await deleteCalendarObject({
        calendarObject: { url: existing.href, etag: undefined },
        headers,
        fetch,
      });
      if (!res.ok && res.status !== 404 && res.status !== 410)
        throw new FeedRefused(`DELETE answered HTTP ${res.status}`);
      await o.store.transaction((tx) => tx.calendars.deletePushedEvent(bookingId, cal.key));
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
          stampMs: o.now(),
          ...o.eventText(rec),
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
    const { updateCalendarObject } = await import('tsdav');
    const res = await updateCalendarObject({
      calendarObject: { url: href, data: body, etag: undefined },
      headers: { ...headers, 'content-type': 'text/calendar; charset=utf-8' },
      fetch,
    });
    if (!res.ok) throw new FeedRefused(`PUT answered HTTP ${res.status}`);
    await o.store.transaction((tx) =>
      tx.calendars.putPushedEvent({ booking_id: bookingId, calendar_key: cal.key, href, fingerprint }),
    );
  }
}
