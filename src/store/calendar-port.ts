/**
 * What the calendars layer keeps: busy intervals read from a resource's calendar feeds, stored as
 * claims on the resource (source `calendar:<feed key>`, apart from bookings and holds, so slot
 * computation, check-and-reserve, the availability cache and PostgreSQL's exclusion constraint see
 * them with no code of their own); each feed's fetch state; and the push queue towards writable
 * CalDAV calendars, filled by a database trigger in the same transaction as every change to a
 * booking on a resource listed in `calendar_push_targets` (never lost, whatever code wrote it).
 */

/** One busy interval [start_ms, end_ms) on a resource. */
export interface BusyInterval {
  start_ms: number;
  end_ms: number;
}

/** The slot key every calendar claim carries: never a service's (ids start with a letter or digit). */
export const CALENDAR_SLOT_KEY = '~calendar';

/** What the last fetches of one feed left. */
export interface CalendarFeedState {
  feed_key: string;
  resource_id: string;
  /** Validators of the last good answer, sent back as If-None-Match / If-Modified-Since. */
  etag: string | null;
  last_modified: string | null;
  last_attempt_ms: number | null;
  /** The last fetch that parsed (a 304 counts): its busy times are the ones kept. */
  last_ok_ms: number | null;
  /** Why the last attempt failed; null once one succeeds. */
  last_error: string | null;
  busy_count: number;
}

/** A booking whose event in the writable calendars of its resources must be brought up to date. */
export interface CalendarPushJob {
  booking_id: string;
  /** Rises with every change to the booking: a job finished at an older version stays queued. */
  version: number;
  attempts: number;
  next_attempt_ms: number;
  last_error: string | null;
}

/** The event we keep for one booking in one writable calendar. */
export interface PushedEvent {
  booking_id: string;
  calendar_key: string;
  /** The event's URL in the calendar collection. */
  href: string;
  /** SHA-256 of the body last put there: an unchanged booking is not sent again. */
  fingerprint: string;
}

export interface CalendarRepo {
  /** The busy intervals a feed stored last, by start. */
  busy(feedKey: string): Promise<BusyInterval[]>;
  /** Replace a feed's busy intervals on its resource (the caller has locked the resource). */
  replaceBusy(feedKey: string, resourceId: string, intervals: readonly BusyInterval[]): Promise<void>;
  /** Calendar busy intervals of these resources overlapping [fromMs, toMs) (the dashboard's calendar). */
  busyOn(
    resourceIds: readonly string[],
    fromMs: number,
    toMs: number,
  ): Promise<Array<BusyInterval & { resource_id: string; feed_key: string }>>;
  /** Forget the busy times and state of every feed not in `keys` (a feed taken out of the business file). */
  forgetFeedsExcept(keys: readonly string[]): Promise<void>;
  feedState(feedKey: string): Promise<CalendarFeedState | null>;
  putFeedState(s: CalendarFeedState): Promise<void>;
  feedStates(): Promise<CalendarFeedState[]>;
  /** The resources whose bookings are pushed (the trigger queues only theirs). */
  setPushTargets(resourceIds: readonly string[]): Promise<void>;
  /** Lease due jobs until `leaseUntilMs`, oldest first. */
  duePushes(nowMs: number, limit: number, leaseUntilMs: number): Promise<CalendarPushJob[]>;
  /** Done: delete the job if no change came in since `version` was read (else it stays due). */
  finishPush(bookingId: string, version: number): Promise<void>;
  failPush(bookingId: string, attempts: number, nextAttemptMs: number, error: string): Promise<void>;
  /** Every queued job (due, leased or waiting for a retry), oldest first: what the dashboard shows. */
  pushBacklog(limit: number): Promise<CalendarPushJob[]>;
  pushedEvents(bookingId: string): Promise<PushedEvent[]>;
  putPushedEvent(e: PushedEvent): Promise<void>;
  deletePushedEvent(bookingId: string, calendarKey: string): Promise<void>;
  /** The booking ids with an event in a calendar (the feed of a resource, tests). */
  pushedTo(calendarKey: string): Promise<PushedEvent[]>;
}
