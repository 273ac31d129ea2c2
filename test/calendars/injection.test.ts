/**
 * No text a buyer writes can add a property or a component to the iCalendar this server writes: a
 * buyer name carrying bare carriage returns (and the other line-break forms) stays one escaped
 * SUMMARY in the staff member's subscribed feed and in the event pushed to their CalDAV calendar
 * (Radicale), read by two parsers (ical.js, and node-ical, which also ends lines at a bare CR).
 * The doors refuse such a name at input now (test/rest/buyer-one-line.test.ts); the output side is
 * proven on a name stored before that rule, written into the booking record as an earlier version
 * let a platform store it.
 */
import ICAL from 'ical.js';
import ical from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingCalendar } from '../../src/domain/index.js';
import { radicaleInstalled, startRadicale, type Radicale } from '../support/radicale.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import {
  CALDAV_SECRET_ENV,
  calendar,
  calendarBusiness,
  DST_NOW,
  startFeedServer,
  type FeedServer,
} from './fixtures.js';

const hasRadicale = radicaleInstalled();
let radicale: Radicale;
let feed: FeedServer;
let t: TestServer;
let caldav: string;

beforeAll(async () => {
  feed = await startFeedServer();
  feed.body = calendar([]);
  if (!hasRadicale) return;
  radicale = await startRadicale();
  caldav = await radicale.makeCalendar('injection');
  t = await startTestServer({
    business: calendarBusiness(feed.url, caldav),
    now: DST_NOW,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false, env: { [CALDAV_SECRET_ENV]: radicale.password } },
  });
});
afterAll(async () => {
  await t?.close();
  await feed?.close();
  await radicale?.stop();
});

/** A first name that, written raw, ends SUMMARY at each bare CR and adds properties and a second event. */
const INJECTED_FIRST = [
  'Eve',
  'ATTENDEE:mailto:thief@example.com',
  'TRANSP:TRANSPARENT',
  'X-INJECTED:yes',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:injected@evil',
  'DTSTART:20261028T130000Z',
  'DTEND:20261028T140000Z',
  'SUMMARY:Injected',
].join('\r');
const INJECTED_LAST = 'Doe\u2028X-SEPARATOR:yes\u0085X-NEL:yes\u000bX-VT:yes';

/** Books `slotId` with a plain name (the doors refuse the injected one), then stores the injected name in the record. */
async function bookWithStoredInjection(s: TestServer, serviceId: string, slotId: string): Promise<string> {
  const refused = await s.call('POST', '/bookings', {
    service_id: serviceId,
    slot_id: slotId,
    buyer: { first_name: INJECTED_FIRST, last_name: INJECTED_LAST, email: 'eve@example.com' },
  });
  expect(refused.status).toBe(400);
  const booked = await s.call('POST', '/bookings', {
    service_id: serviceId,
    slot_id: slotId,
    buyer: { ...BUYER, email: 'eve@example.com' },
  });
  expect(booked.status).toBe(201);
  await s.server.store.transaction(async (tx) => {
    const rec = (await tx.bookings.get(booked.body.booking.id))!;
    rec.booking.buyer.first_name = INJECTED_FIRST;
    rec.booking.buyer.last_name = INJECTED_LAST;
    await tx.frontdesk.rewrite('bookings', rec.booking.id, JSON.stringify(rec));
  });
  return booked.body.booking.id;
}

/** Every VEVENT of a text as ical.js reads it, with its property names. */
function icalJsEvents(text: string): Array<{ props: string[]; summary: string }> {
  const root = new ICAL.Component(ICAL.parse(text) as any);
  return root.getAllSubcomponents('vevent').map((v) => ({
    props: v.getAllProperties().map((p) => p.name),
    summary: String(v.getFirstPropertyValue('summary')),
  }));
}

/** The checks both calendars must pass: one event, its summary the whole name, nothing injected. */
function expectOneEscapedEvent(text: string): void {
  const events = icalJsEvents(text);
  expect(events).toHaveLength(1);
  expect(
    events[0].props.filter((p) => ['attendee', 'transp', 'x-injected', 'x-separator', 'x-nel', 'x-vt'].includes(p)),
  ).toEqual([]);
  expect(events[0].summary).toContain('ATTENDEE:mailto:thief@example.com');
  expect(events[0].summary).toContain('X-VT:yes');
  // A reader that ends a content line at CR LF, LF or a bare CR (as some clients do) sees the same.
  const lines = text.split(/\r\n|\r|\n/).filter((l) => !l.startsWith(' '));
  expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
  expect(lines.filter((l) => /^(ATTENDEE|TRANSP|X-INJECTED|X-SEPARATOR|X-NEL|X-VT)\b/.test(l))).toEqual([]);
  const parsed = Object.values(ical.sync.parseICS(text)).filter((c) => c?.type === 'VEVENT') as Array<
    Record<string, unknown>
  >;
  expect(parsed).toHaveLength(1);
  for (const key of ['attendee', 'transparency', 'X-INJECTED', 'X-SEPARATOR', 'X-NEL', 'X-VT'])
    expect(parsed[0][key]).toBeUndefined();
  // No line break but the CR LF line ends survives in the text.
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n\u000b\u000c\u0085\u2028\u2029]/);
}

describe.skipIf(!hasRadicale)('a stored buyer name with bare carriage returns cannot inject into the calendars', () => {
  it("booked on the REST door, it is one escaped SUMMARY in the staff feed and in the event Radicale stores, with no ATTENDEE or TRANSP of the buyer's", async () => {
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-28',
        end_date: '2026-10-28',
      })
    ).body.slots;
    await bookWithStoredInjection(t, 'svc_b', slots[0].id);

    expect(await t.server.calendars!.pusher!.tick()).toBe(1);
    const stored = await radicale.objects(caldav);
    expect(stored).toHaveLength(1);
    expectOneEscapedEvent(stored[0].data);

    const url = (
      await t.call('GET', '/admin/resources/res_b/calendar-feed', undefined, { apiKey: ADMIN_KEY, profile: null })
    ).body.url as string;
    const u = new URL(url);
    const res = await fetch(`${t.url}${u.pathname}${u.search}`);
    expect(res.status).toBe(200);
    expectOneEscapedEvent(await res.text());
  });
});

describe('the mailed invitation of a booking by such a buyer', () => {
  it('(the cancellation) carries one VEVENT whose one ATTENDEE is the buyer, with the name as its CN and nothing injected', async () => {
    const sink = await startSmtpSink();
    const s = await startTestServer({
      mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
    });
    try {
      const q = await s.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      const id = await bookWithStoredInjection(s, 'svc_haircut', q.body.slots[0].id);
      await s.server.mailWorker!.tick();
      // The confirmation was written before the name was stored; the cancellation reads it from the record.
      expect((await s.call('POST', `/bookings/${id}/cancel`, {})).status).toBe(200);
      await s.server.mailWorker!.tick();
      const mail = sink
        .to('eve@example.com')
        .find((m) =>
          m.attachments.some(
            (p) => p.contentType === 'text/calendar' && p.content.toString('utf8').includes('METHOD:CANCEL'),
          ),
        );
      expect(mail, 'the cancellation with its invitation').toBeDefined();
      const part = mail!.attachments.find((p) => p.contentType === 'text/calendar');
      expect(part, 'a text/calendar part').toBeDefined();
      const text = part!.content.toString('utf8');
      const events = icalJsEvents(text);
      expect(events).toHaveLength(1);
      expect(events[0].props.filter((p) => p === 'attendee')).toHaveLength(1);
      expect(
        events[0].props.filter((p) => ['transp', 'x-injected', 'x-separator', 'x-nel', 'x-vt'].includes(p)),
      ).toEqual([]);
      const root = new ICAL.Component(ICAL.parse(text) as any);
      const attendee = root.getFirstSubcomponent('vevent')!.getFirstProperty('attendee')!;
      expect(attendee.getFirstValue()).toBe('mailto:eve@example.com');
      expect(String(attendee.getParameter('cn'))).toContain('ATTENDEE:mailto:thief@example.com');
      expect(text.split(/\r\n|\r|\n/).filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
    } finally {
      await s.close();
      await sink.close();
    }
  });
});

describe('the one iCalendar text escaping', () => {
  it('every line-break form becomes the escaped \\n and other control characters are dropped, in TEXT values and quoted parameters', () => {
    const ics = bookingCalendar({
      uid: 'b1@example.com',
      sequence: 0,
      canceled: false,
      startMs: DST_NOW,
      endMs: DST_NOW + 3_600_000,
      stampMs: DST_NOW,
      summary: 'a\rb\nc\r\nd\u000be\u000cf\u0085g\u2028h\u2029i\u0000j\u0007k\u007fl\u009bm\tn;o,p\\q',
      organizerName: 'Studio"\rX-ORG:1',
      attendee: { email: 'x@example.com', name: 'Eve\rX-CN:1' },
    });
    expect(ics).toContain('SUMMARY:a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\nijklm\tn\\;o\\,p\\\\q');
    expect(ics).toContain('ORGANIZER;CN="Studio X-ORG:1":urn:usp:business');
    expect(ics).toContain('ATTENDEE;CN="Eve X-CN:1";');
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });
});
