/** Calendar claims, feed state and the push queue as both engines write and read them. */
export const FEED_COLUMNS =
  'feed_key, resource_id, etag, last_modified, last_attempt_ms, last_ok_ms, last_error, busy_count';
export const PUSH_JOB_COLUMNS = 'booking_id, version, attempts, next_attempt_ms, last_error';
export const PUSHED_EVENT_COLUMNS = 'booking_id, calendar_key, href, fingerprint';

const SOURCE_PREFIX = 'calendar:';

/** The `source` of a feed's busy claims ('booking' marks bookings and holds). */
export const calendarSource = (feedKey: string): string => `${SOURCE_PREFIX}${feedKey}`;

/** The owner id of a feed's busy claims, followed by the interval's number. */
export const calendarOwnerPrefix = (feedKey: string): string => `~cal:${feedKey}:`;

/** A busy claim of some feed on a resource, as `busyOn` answers it. */
export const toBusyOn = (r: { resource_id: string; start_ms: number; end_ms: number; source: string }) => ({
  resource_id: r.resource_id,
  start_ms: r.start_ms,
  end_ms: r.end_ms,
  feed_key: String(r.source).slice(SOURCE_PREFIX.length),
});
