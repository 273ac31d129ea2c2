/** Calendar busy claims, feed state and the CalDAV push queue on SQLite (see calendar-port.ts). */
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
import { SQLITE_TYPES } from '../shared/schema/types.js';
import { placeholders, type Statements } from './statements.js';

/**
 * Claims get a source ('booking' for bookings and holds, `calendar:<feed key>` for busy times);
 * a change to a booking on a push target queues that booking, in the same transaction.
 */
const ON_PUSH_TARGET = (row: 'NEW' | 'OLD') =>
  `EXISTS (SELECT 1 FROM calendar_push_targets t, json_each(${row}.data, '$.priv.resource_ids') j WHERE j.value = t.resource_id)`;
const QUEUE_PUSH = `INSERT INTO calendar_push_jobs (booking_id, version, attempts, next_attempt_ms, seq)
      VALUES (NEW.id, 1, 0, 0, (SELECT COALESCE(MAX(seq), 0) + 1 FROM calendar_push_jobs))
      ON CONFLICT (booking_id) DO UPDATE SET version = version + 1, attempts = 0, next_attempt_ms = 0, last_error = NULL;`;

export const SQLITE_CALENDARS_MIGRATION = `${calendarTables(SQLITE_TYPES)}
  CREATE TRIGGER calendar_push_ins AFTER INSERT ON bookings
    WHEN ${ON_PUSH_TARGET('NEW')}
  BEGIN
    ${QUEUE_PUSH}
  END;
  CREATE TRIGGER calendar_push_upd AFTER UPDATE ON bookings
    WHEN ${ON_PUSH_TARGET('NEW')}
      OR ${ON_PUSH_TARGET('OLD')}
  BEGIN
    ${QUEUE_PUSH}
  END;
`;

export function sqliteCalendars(s: Statements): CalendarRepo {
  const repo = Object.create(CALENDARS) as CalendarRepo & { s: Statements };
  repo.s = s;
  return repo;
}

/**
 * The repository's methods, once for every store (the prototype of each store's repository, which
 * holds only its statement cache): as closures of each store they were about 1.2 KB per hosted
 * business, which builds this repository as it opens (its push targets).
 */
const CALENDARS: CalendarRepo & ThisType<{ s: Statements }> = {
  async busy(feedKey) {
    return this.s
      .prepare('SELECT start_ms, end_ms FROM claims WHERE source = ? ORDER BY start_ms, end_ms')
      .all(calendarSource(feedKey)) as any[];
  },
  async replaceBusy(feedKey, resourceId, intervals) {
    this.s.prepare('DELETE FROM claims WHERE source = ?').run(calendarSource(feedKey));
    const insert = this.s.prepare(
      `INSERT INTO claims (resource_id, start_ms, end_ms, slot_key, owner_id, spots, is_hold, service_id, expires_at_ms, source)
       VALUES (?, ?, ?, ?, ?, 1, 0, ?, NULL, ?)`,
    );
    let span = 0;
    intervals.forEach((b, i) => {
      insert.run(
        resourceId,
        b.start_ms,
        b.end_ms,
        CALENDAR_SLOT_KEY,
        `${calendarOwnerPrefix(feedKey)}${i}`,
        CALENDAR_SLOT_KEY,
        calendarSource(feedKey),
      );
      span = Math.max(span, b.end_ms - b.start_ms);
    });
    if (span > 0) this.s.prepare('UPDATE claim_span SET max_ms = ? WHERE id = 1 AND max_ms < ?').run(span, span);
  },
  async busyOn(resourceIds, fromMs, toMs) {
    if (resourceIds.length === 0) return [];
    const rows = this.s
      .prepare(
        `SELECT resource_id, start_ms, end_ms, source FROM claims WHERE source <> 'booking' AND resource_id IN (${placeholders(resourceIds.length)})
         AND start_ms < ? AND end_ms > ? ORDER BY start_ms`,
      )
      .all(...resourceIds, toMs, fromMs) as Array<{
      resource_id: string;
      start_ms: number;
      end_ms: number;
      source: string;
    }>;
    return rows.map(toBusyOn);
  },
  async forgetFeedsExcept(keys) {
    const keep = keys.map(calendarSource);
    const inList = keep.length === 0 ? '' : ` AND source NOT IN (${placeholders(keep.length)})`;
    this.s.once(`DELETE FROM claims WHERE source <> 'booking'${inList}`).run(...keep);
    this.s
      .once(
        `DELETE FROM calendar_feeds${keys.length === 0 ? '' : ` WHERE feed_key NOT IN (${placeholders(keys.length)})`}`,
      )
      .run(...keys);
  },
  async feedState(feedKey) {
    return (
      (this.s.prepare(`SELECT ${FEED_COLUMNS} FROM calendar_feeds WHERE feed_key = ?`).get(feedKey) as any) ?? null
    );
  },
  async putFeedState(f) {
    this.s
      .prepare(
        `INSERT INTO calendar_feeds (${FEED_COLUMNS}) VALUES (@feed_key, @resource_id, @etag, @last_modified, @last_attempt_ms, @last_ok_ms, @last_error, @busy_count)
       ON CONFLICT (feed_key) DO UPDATE SET resource_id = excluded.resource_id, etag = excluded.etag, last_modified = excluded.last_modified,
         last_attempt_ms = excluded.last_attempt_ms, last_ok_ms = excluded.last_ok_ms, last_error = excluded.last_error, busy_count = excluded.busy_count`,
      )
      .run(f);
  },
  async feedStates() {
    return this.s.prepare(`SELECT ${FEED_COLUMNS} FROM calendar_feeds ORDER BY resource_id, feed_key`).all() as any[];
  },
  async setPushTargets(resourceIds) {
    this.s.once('DELETE FROM calendar_push_targets').run();
    const insert = this.s.once('INSERT OR IGNORE INTO calendar_push_targets (resource_id) VALUES (?)');
    for (const r of resourceIds) insert.run(r);
  },
  async duePushes(nowMs, limit, leaseUntilMs) {
    const rows = this.s
      .prepare(
        `SELECT ${JOB_COLUMNS} FROM calendar_push_jobs WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
         ORDER BY next_attempt_ms, seq LIMIT ?`,
      )
      .all(nowMs, nowMs, limit) as any[];
    const lease = this.s.prepare('UPDATE calendar_push_jobs SET lease_until_ms = ? WHERE booking_id = ?');
    for (const r of rows) lease.run(leaseUntilMs, r.booking_id);
    return rows;
  },
  async finishPush(bookingId, version) {
    this.s.prepare('DELETE FROM calendar_push_jobs WHERE booking_id = ? AND version = ?').run(bookingId, version);
    this.s.prepare('UPDATE calendar_push_jobs SET lease_until_ms = NULL WHERE booking_id = ?').run(bookingId);
  },
  async failPush(bookingId, attempts, nextAttemptMs, error) {
    this.s
      .prepare(
        'UPDATE calendar_push_jobs SET attempts = ?, next_attempt_ms = ?, last_error = ?, lease_until_ms = NULL WHERE booking_id = ?',
      )
      .run(attempts, nextAttemptMs, error, bookingId);
  },
  async pushBacklog(limit) {
    return this.s.prepare(`SELECT ${JOB_COLUMNS} FROM calendar_push_jobs ORDER BY seq LIMIT ?`).all(limit) as any[];
  },
  async pushedEvents(bookingId) {
    return this.s.prepare(`SELECT ${EVENT_COLUMNS} FROM calendar_events WHERE booking_id = ?`).all(bookingId) as any[];
  },
  async putPushedEvent(e) {
    this.s
      .prepare(
        `INSERT INTO calendar_events (${EVENT_COLUMNS}) VALUES (@booking_id, @calendar_key, @href, @fingerprint)
       ON CONFLICT (booking_id, calendar_key) DO UPDATE SET href = excluded.href, fingerprint = excluded.fingerprint`,
      )
      .run(e);
  },
  async deletePushedEvent(bookingId, calendarKey) {
    this.s.prepare('DELETE FROM calendar_events WHERE booking_id = ? AND calendar_key = ?').run(bookingId, calendarKey);
  },
  async pushedTo(calendarKey) {
    return this.s
      .prepare(`SELECT ${EVENT_COLUMNS} FROM calendar_events WHERE calendar_key = ? ORDER BY booking_id`)
      .all(calendarKey) as any[];
  },
};
