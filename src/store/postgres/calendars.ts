/** Calendar busy claims, feed state and the CalDAV push queue on PostgreSQL (see calendar-port.ts). */
import { CALENDAR_SLOT_KEY, type CalendarRepo } from '../calendar-port.js';
import {
  calendarOwnerPrefix,
  calendarSource,
  FEED_COLUMNS,
  PUSH_JOB_COLUMNS as JOB_COLUMNS,
  PUSHED_EVENT_COLUMNS as EVENT_COLUMNS,
  toBusyOn,
} from '../shared/calendar-rows.js';
import { calendarTables } from '../shared/schema/feature-tables.js';
import { POSTGRES_TYPES } from '../shared/schema/types.js';
import type { PgSession } from './session.js';

/**
 * Claims get a source ('booking' for bookings and holds, `calendar:<feed key>` for busy times); a
 * change to a booking on a push target queues that booking, in the same transaction. Calendar
 * claims are firm (no expiry) and share one slot key, so the exclusion constraint keeps them off
 * bookings while letting two feeds of one resource overlap each other.
 */
export const POSTGRES_CALENDARS_MIGRATION = `${calendarTables(POSTGRES_TYPES)}
  CREATE FUNCTION queue_calendar_push() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM calendar_push_targets t
               WHERE t.resource_id IN (SELECT jsonb_array_elements_text((NEW.data::jsonb)->'priv'->'resource_ids'))
                  OR (TG_OP = 'UPDATE' AND t.resource_id IN (SELECT jsonb_array_elements_text((OLD.data::jsonb)->'priv'->'resource_ids')))) THEN
      INSERT INTO calendar_push_jobs (booking_id, version, attempts, next_attempt_ms) VALUES (NEW.id, 1, 0, 0)
        ON CONFLICT (booking_id) DO UPDATE SET version = calendar_push_jobs.version + 1, attempts = 0, next_attempt_ms = 0, last_error = NULL;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER calendar_push AFTER INSERT OR UPDATE ON bookings FOR EACH ROW EXECUTE FUNCTION queue_calendar_push();
`;

export function pgCalendars(s: PgSession): CalendarRepo {
  const source = calendarSource;
  return {
    async busy(feedKey) {
      return s.rows('SELECT start_ms, end_ms FROM claims WHERE source = $1 ORDER BY start_ms, end_ms', [
        source(feedKey),
      ]);
    },
    async replaceBusy(feedKey, resourceId, intervals) {
      await s.query('DELETE FROM claims WHERE source = $1', [source(feedKey)]);
      if (intervals.length === 0) return;
      await s.query(
        `INSERT INTO claims (resource_id, start_ms, end_ms, slot_key, owner_id, spots, is_hold, service_id, expires_at_ms, source)
         SELECT $1, b.start_ms, b.end_ms, $4, $5 || b.i::text, 1, FALSE, $4, NULL, $6
         FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS b(start_ms, end_ms, i)`,
        [
          resourceId,
          intervals.map((b) => b.start_ms),
          intervals.map((b) => b.end_ms),
          CALENDAR_SLOT_KEY,
          calendarOwnerPrefix(feedKey),
          source(feedKey),
        ],
      );
      const span = Math.max(...intervals.map((b) => b.end_ms - b.start_ms));
      await s.query('UPDATE claim_span SET max_ms = $1 WHERE id = 1 AND max_ms < $1', [span]);
    },
    async busyOn(resourceIds, fromMs, toMs) {
      if (resourceIds.length === 0) return [];
      const rows = await s.rows(
        `SELECT resource_id, start_ms, end_ms, source FROM claims WHERE source <> 'booking' AND resource_id = ANY($1::text[])
         AND start_ms < $2 AND end_ms > $3 ORDER BY start_ms`,
        [resourceIds, toMs, fromMs],
      );
      return rows.map(toBusyOn);
    },
    async forgetFeedsExcept(keys) {
      await s.query(`DELETE FROM claims WHERE source <> 'booking' AND NOT (source = ANY($1::text[]))`, [
        keys.map(source),
      ]);
      await s.query('DELETE FROM calendar_feeds WHERE NOT (feed_key = ANY($1::text[]))', [keys]);
    },
    async feedState(feedKey) {
      return (await s.rows(`SELECT ${FEED_COLUMNS} FROM calendar_feeds WHERE feed_key = $1`, [feedKey]))[0] ?? null;
    },
    async putFeedState(f) {
      await s.query(
        `INSERT INTO calendar_feeds (${FEED_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (feed_key) DO UPDATE SET resource_id = EXCLUDED.resource_id, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
           last_attempt_ms = EXCLUDED.last_attempt_ms, last_ok_ms = EXCLUDED.last_ok_ms, last_error = EXCLUDED.last_error, busy_count = EXCLUDED.busy_count`,
        [
          f.feed_key,
          f.resource_id,
          f.etag,
          f.last_modified,
          f.last_attempt_ms,
          f.last_ok_ms,
          f.last_error,
          f.busy_count,
        ],
      );
    },
    async feedStates() {
      return s.rows(`SELECT ${FEED_COLUMNS} FROM calendar_feeds ORDER BY resource_id, feed_key`);
    },
    async setPushTargets(resourceIds) {
      await s.query('DELETE FROM calendar_push_targets WHERE NOT (resource_id = ANY($1::text[]))', [resourceIds]);
      await s.query(
        'INSERT INTO calendar_push_targets (resource_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING',
        [resourceIds],
      );
    },
    async duePushes(nowMs, limit, leaseUntilMs) {
      return s.rows(
        `UPDATE calendar_push_jobs SET lease_until_ms = $3 WHERE booking_id IN (
           SELECT booking_id FROM calendar_push_jobs WHERE next_attempt_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms <= $1)
           ORDER BY next_attempt_ms, seq LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING ${JOB_COLUMNS}`,
        [nowMs, limit, leaseUntilMs],
      );
    },
    async finishPush(bookingId, version) {
      await s.query('DELETE FROM calendar_push_jobs WHERE booking_id = $1 AND version = $2', [bookingId, version]);
      await s.query('UPDATE calendar_push_jobs SET lease_until_ms = NULL WHERE booking_id = $1', [bookingId]);
    },
    async failPush(bookingId, attempts, nextAttemptMs, error) {
      await s.query(
        'UPDATE calendar_push_jobs SET attempts = $1, next_attempt_ms = $2, last_error = $3, lease_until_ms = NULL WHERE booking_id = $4',
        [attempts, nextAttemptMs, error, bookingId],
      );
    },
    async pushBacklog(limit) {
      return s.rows(`SELECT ${JOB_COLUMNS} FROM calendar_push_jobs ORDER BY seq LIMIT $1`, [limit]);
    },
    async pushedEvents(bookingId) {
      return s.rows(`SELECT ${EVENT_COLUMNS} FROM calendar_events WHERE booking_id = $1`, [bookingId]);
    },
    async putPushedEvent(e) {
      await s.query(
        `INSERT INTO calendar_events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4)
         ON CONFLICT (booking_id, calendar_key) DO UPDATE SET href = EXCLUDED.href, fingerprint = EXCLUDED.fingerprint`,
        [e.booking_id, e.calendar_key, e.href, e.fingerprint],
      );
    },
    async deletePushedEvent(bookingId, calendarKey) {
      await s.query('DELETE FROM calendar_events WHERE booking_id = $1 AND calendar_key = $2', [
        bookingId,
        calendarKey,
      ]);
    },
    async pushedTo(calendarKey) {
      return s.rows(`SELECT ${EVENT_COLUMNS} FROM calendar_events WHERE calendar_key = $1 ORDER BY booking_id`, [
        calendarKey,
      ]);
    },
  };
}
