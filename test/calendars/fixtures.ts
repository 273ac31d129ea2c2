/**
 * What the calendar tests share: a small business (one resource read from an iCalendar feed, one
 * from a Radicale calendar that also receives its bookings, one service on each), a loopback feed
 * server whose answer the test sets (with ETag and 304s), and the iCalendar texts of a DST week.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { BusinessDef } from '../../src/domain/business.js';
import { parseBusinessFile } from '../../src/server/business-file.js';

export const ZONE = 'America/New_York';
/** The environment variable the Radicale calendar's password is read from (a calendar secret's name). */
export const CALDAV_SECRET_ENV = 'USP_CALENDAR_SECRET_BIZ_CAL__RADICALE';
const EVERY_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ opens: '09:00', closes: '17:00' }],
  ]),
);

export function calendarBusiness(
  icsUrl: string,
  caldavUrl: string | null,
  opts: { write?: boolean } = {},
): BusinessDef {
  const service = (id: string, resource: string) => ({
    id,
    name: id === 'svc_a' ? 'Consultation A' : 'Consultation B',
    type: 'appointment',
    duration: { fixed: 'PT60M' },
    pricing: { model: 'free', currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true, max_reschedules: 5 },
      booking_window: { min_advance: 'PT1H', max_advance: 'P60D', slot_interval: 'PT60M' },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    requirements: [{ type: 'staff', name: 'Staff', resource_ids: [resource] }],
    location_ids: ['loc_main'],
  });
  const raw = {
    business: {
      id: 'biz_cal',
      name: 'Calendar Test Studio',
      timezone: ZONE,
      currency: 'USD',
      locations: [{ id: 'loc_main', name: 'Main' }],
    },
    resources: [
      {
        id: 'res_a',
        type: 'staff',
        name: 'Ann',
        location_id: 'loc_main',
        schedule: EVERY_DAY,
        calendars: [{ type: 'ics', url: icsUrl }],
      },
      {
        id: 'res_b',
        type: 'staff',
        name: 'Bo',
        location_id: 'loc_main',
        schedule: EVERY_DAY,
        ...(caldavUrl
          ? {
              calendars: [
                {
                  type: 'caldav',
                  url: caldavUrl,
                  username: 'staff',
                  password_env: CALDAV_SECRET_ENV,
                  write: opts.write ?? true,
                },
              ],
            }
          : {}),
      },
    ],
    services: [service('svc_a', 'res_a'), service('svc_b', 'res_b')],
  };
  return parseBusinessFile(raw, 'calendar-business.json');
}

/** A loopback iCalendar feed: `body` is what it answers (with an ETag), `handler` overrides it. */
export interface FeedServer {
  url: string;
  body: string;
  status: number;
  requests: Array<{ ifNoneMatch?: string }>;
  handler?: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const feed: FeedServer = { url: '', body: calendar([]), status: 200, requests: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    feed.requests.push({ ifNoneMatch: req.headers['if-none-match'] });
    if (feed.handler) return feed.handler(req, res);
    const etag = `"${Buffer.from(feed.body).length}-${hash(feed.body)}"`;
    if (feed.status === 200 && req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      return res.end();
    }
    res.writeHead(feed.status, { 'content-type': 'text/calendar', etag });
    res.end(feed.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  feed.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/ann.ics`;
  feed.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return feed;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h >>> 0;
}

/** A VCALENDAR around the given VEVENT blocks, with New York's VTIMEZONE. */
export function calendar(events: readonly string[]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//usp-server tests//EN',
    'BEGIN:VTIMEZONE',
    'TZID:America/New_York',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'TZOFFSETTO:-0400',
    'DTSTART:19700308T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'TZOFFSETTO:-0500',
    'DTSTART:19701101T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'END:STANDARD',
    'END:VTIMEZONE',
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

export function vevent(fields: Record<string, string>): string {
  return [
    'BEGIN:VEVENT',
    `DTSTAMP:20261001T000000Z`,
    ...Object.entries(fields).map(([k, v]) => `${k}${v.startsWith(':') ? '' : ':'}${v}`),
    'END:VEVENT',
  ].join('\r\n');
}

/**
 * The DST week (New York leaves daylight time on Sunday 2026-11-01): a daily 09:00 stand-up with one
 * day excluded and one instance moved to 14:00, an all-day event, a floating-time lunch, and two
 * events that are not busy time (transparent, cancelled).
 */
export const DST_WEEK_EVENTS: readonly string[] = [
  vevent({
    UID: 'standup@test',
    'DTSTART;TZID=America/New_York': ':20261028T090000',
    'DTEND;TZID=America/New_York': ':20261028T100000',
    RRULE: 'FREQ=DAILY;COUNT=7',
    'EXDATE;TZID=America/New_York': ':20261030T090000',
    SUMMARY: 'Stand-up',
  }),
  vevent({
    UID: 'standup@test',
    'RECURRENCE-ID;TZID=America/New_York': ':20261102T090000',
    'DTSTART;TZID=America/New_York': ':20261102T140000',
    'DTEND;TZID=America/New_York': ':20261102T150000',
    SUMMARY: 'Stand-up (moved)',
  }),
  vevent({
    UID: 'offsite@test',
    'DTSTART;VALUE=DATE': ':20261031',
    'DTEND;VALUE=DATE': ':20261101',
    SUMMARY: 'Off-site',
  }),
  vevent({ UID: 'lunch@test', DTSTART: '20261103T120000', DTEND: '20261103T130000', SUMMARY: 'Lunch (floating)' }),
  vevent({
    UID: 'free@test',
    DTSTART: '20261029T190000Z',
    DTEND: '20261029T200000Z',
    TRANSP: 'TRANSPARENT',
    SUMMARY: 'Free',
  }),
  vevent({
    UID: 'gone@test',
    DTSTART: '20261029T200000Z',
    DTEND: '20261029T210000Z',
    STATUS: 'CANCELLED',
    SUMMARY: 'Cancelled',
  }),
];

/** Per local day of the DST week: the hours (local HH:MM slot starts) busy and free. */
export const DST_WEEK_EXPECTED: ReadonlyArray<{ date: string; busy: string[]; free: string[] }> = [
  { date: '2026-10-28', busy: ['09:00'], free: ['10:00', '14:00'] },
  { date: '2026-10-29', busy: ['09:00'], free: ['15:00', '16:00'] }, // 15:00 EDT transparent, 16:00 EDT cancelled
  { date: '2026-10-30', busy: [], free: ['09:00'] }, // excluded
  { date: '2026-10-31', busy: ['09:00', '12:00', '16:00'], free: [] }, // all day
  { date: '2026-11-01', busy: ['09:00'], free: ['10:00'] }, // 09:00 EST: an hour later in UTC than the day before
  { date: '2026-11-02', busy: ['14:00'], free: ['09:00'] }, // the moved instance
  { date: '2026-11-03', busy: ['09:00', '12:00'], free: ['10:00', '13:00'] }, // floating lunch in the business zone
];

/** The clock of the DST-week tests: Tuesday 2026-10-27 12:00 in New York. */
export const DST_NOW = Date.parse('2026-10-27T16:00:00Z');
