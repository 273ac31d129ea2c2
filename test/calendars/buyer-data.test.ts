/**
 * What the subscribed feeds and the events pushed to CalDAV carry of the buyer is the business's
 * choice (`settings.calendar_feed_buyer_data`): `none` (the service only), `name` (the default) or
 * `name_and_contact` (also email and phone, in the description). Feeds read with node-ical, pushed
 * events from a real Radicale.
 */
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BusinessDef } from '../../src/domain/business.js';
import { checkBusinessDocument } from '../../src/domain/index.js';
import { ADMIN_KEY, BUYER, startTestServer, type TestServer } from '../support/server.js';
import { radicaleInstalled, startRadicale, type Radicale } from '../support/radicale.js';
import { CALDAV_SECRET_ENV, calendarBusiness, DST_NOW, startFeedServer, type FeedServer } from './fixtures.js';

const hasRadicale = radicaleInstalled();
const BUYER_WITH_PHONE = { ...BUYER, phone_number: '+12125550100' };
let feed: FeedServer;
let radicale: Radicale | undefined;
let t: TestServer | undefined;
beforeAll(async () => {
  feed = await startFeedServer();
  if (hasRadicale) radicale = await startRadicale();
});
afterAll(async () => {
  await feed.close();
  await radicale?.stop();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Choice = 'none' | 'name' | 'name_and_contact' | undefined;
let calendars = 0;

/** A server whose res_b has a writable Radicale calendar (or none), the setting as given, and one booking on res_b. */
async function start(choice: Choice, withCaldav: boolean): Promise<{ caldav: string | null; bookingId: string }> {
  const caldav = withCaldav ? await radicale!.makeCalendar(`buyer${++calendars}`) : null;
  const def = calendarBusiness(feed.url, caldav);
  const business: BusinessDef =
    choice === undefined ? def : { ...def, settings: { ...def.settings, calendar_feed_buyer_data: choice } };
  t = await startTestServer({
    business,
    now: DST_NOW,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false, env: { [CALDAV_SECRET_ENV]: radicale?.password ?? '' } },
  });
  const slots = (
    await t.call('POST', '/availability/query', {
      service_id: 'svc_b',
      start_date: '2026-10-28',
      end_date: '2026-10-28',
    })
  ).body.slots;
  const b = await t.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slots[0].id, buyer: BUYER_WITH_PHONE });
  expect(b.status).toBe(201);
  return { caldav, bookingId: b.body.booking.id };
}

function eventOf(text: string, bookingId: string): VEvent {
  const found = Object.values(ical.sync.parseICS(text)).find(
    (c): c is VEvent => c?.type === 'VEVENT' && c.uid === `${bookingId}.booking@usp-server`,
  );
  expect(found, text).toBeDefined();
  return found!;
}

async function feedEvent(scope: string, bookingId: string): Promise<{ event: VEvent; text: string }> {
  const r = await t!.call('GET', `/admin/resources/${scope}/calendar-feed`, undefined, {
    apiKey: ADMIN_KEY,
    profile: null,
  });
  const u = new URL(r.body.url);
  const text = await (await fetch(`${t!.url}${u.pathname}${u.search}`)).text();
  return { event: eventOf(text, bookingId), text };
}

const EXPECTED: Array<{
  choice: Choice;
  label: string;
  summary: string;
  description: string | undefined;
  absent: string[];
}> = [
  {
    choice: 'none',
    label: 'none: the service only',
    summary: 'Consultation B',
    description: undefined,
    absent: ['Ada', 'Lovelace', 'ada@example.com', '5550100'],
  },
  {
    choice: undefined,
    label: 'absent (default name): the name, no contact',
    summary: 'Consultation B: Ada Lovelace',
    description: undefined,
    absent: ['ada@example.com', '5550100'],
  },
  {
    choice: 'name',
    label: 'name: the name, no contact',
    summary: 'Consultation B: Ada Lovelace',
    description: undefined,
    absent: ['ada@example.com', '5550100'],
  },
  {
    choice: 'name_and_contact',
    label: 'name_and_contact: the name, and email and phone in the description',
    summary: 'Consultation B: Ada Lovelace',
    description: 'Email: ada@example.com\nPhone: +12125550100',
    absent: [],
  },
];

describe('subscribed feeds carry as much of the buyer as the business chose (settings.calendar_feed_buyer_data)', () => {
  for (const row of EXPECTED) {
    it(`${row.label} (resource feed and business feed)`, async () => {
      const { bookingId } = await start(row.choice, false);
      for (const scope of ['res_b', '_business']) {
        const { event, text } = await feedEvent(scope, bookingId);
        expect(event.summary).toBe(row.summary);
        expect(event.description).toBe(row.description);
        for (const s of row.absent) expect(text).not.toContain(s);
      }
    });
  }

  it('a value outside the three is refused by the business file check', () => {
    const doc = JSON.parse(JSON.stringify(calendarBusiness(feed.url, null)));
    doc.settings.calendar_feed_buyer_data = 'everything';
    const checked = checkBusinessDocument(doc);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.issues.map((i) => i.path)).toContain('settings.calendar_feed_buyer_data');
  });
});

describe.skipIf(!hasRadicale)(
  'events pushed to a CalDAV calendar carry as much of the buyer as the business chose',
  () => {
    for (const row of EXPECTED.filter((r) => r.choice !== 'name')) {
      it(row.label, async () => {
        const { caldav, bookingId } = await start(row.choice, true);
        expect(await t!.server.calendars!.pusher.tick()).toBe(1);
        const objects = await radicale!.objects(caldav!);
        expect(objects).toHaveLength(1);
        const event = eventOf(objects[0].data, bookingId);
        expect(event.summary).toBe(row.summary);
        expect(event.description).toBe(row.description);
        for (const s of row.absent) expect(objects[0].data).not.toContain(s);
      });
    }
  },
);
