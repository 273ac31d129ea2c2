/**
 * Each resource has a secret iCalendar feed of its bookings and the business one of all of them:
 * the URL is answered by an admin operation, works only with its token, stops working when
 * rotated, and names the buyer only (no email, no phone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/logging.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let bookingId: string;
beforeAll(async () => {
  t = await startTestServer();
  const slots = (
    await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
      resource_ids: ['res_stylist_ava'],
    })
  ).body.slots;
  const slot = slots.find((s: any) => s.resources?.some((r: any) => r.id === 'res_stylist_ava')) ?? slots[0];
  const b = await t.call('POST', '/bookings', {
    service_id: 'svc_haircut',
    slot_id: slot.id,
    buyer: { ...BUYER, phone_number: '+12125550100' },
  });
  expect(b.status).toBe(201);
  bookingId = b.body.booking.id;
});
afterAll(async () => t.close());

const admin = (method: string, path: string) => t.call(method, path, undefined, { apiKey: ADMIN_KEY, profile: null });
const feedOf = async (url: string) => {
  const u = new URL(url);
  const r = await fetch(`${t.url}${u.pathname}${u.search}`);
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
};

describe('secret calendar feeds of bookings to subscribe to', () => {
  it("the admin operation answers the feed URL; the feed carries the resource's booking with the buyer's name only", async () => {
    const resource = (await t.server.store.read((tx) => tx.bookings.get(bookingId)))!.priv.resource_ids[0];
    const r = await admin('GET', `/admin/resources/${resource}/calendar-feed`);
    expect(r.status).toBe(200);
    expect(r.body.url).toMatch(new RegExp(`/calendars/${resource}\\.ics\\?token=[A-Za-z0-9_-]{32}$`));
    const again = await admin('GET', `/admin/resources/${resource}/calendar-feed`);
    expect(again.body.url).toBe(r.body.url);
    const f = await feedOf(r.body.url);
    expect(f.status).toBe(200);
    expect(f.type).toContain('text/calendar');
    expect(f.text).toContain(`UID:${bookingId}.booking@usp-server`);
    expect(f.text).toContain('Ada Lovelace');
    expect(f.text).not.toContain('ada@example.com');
    expect(f.text).not.toContain('5550100');
    const business = await admin('GET', '/admin/resources/_business/calendar-feed');
    expect((await feedOf(business.body.url)).text).toContain(`UID:${bookingId}.booking@usp-server`);
  });

  it('a wrong or missing token answers not_found; after rotation the old URL stops working and the new one works', async () => {
    const r = await admin('GET', '/admin/resources/res_stylist_ben/calendar-feed');
    const u = new URL(r.body.url);
    expect((await feedOf(`${u.origin}${u.pathname}?token=wrong`)).status).toBe(404);
    expect((await feedOf(`${u.origin}${u.pathname}`)).status).toBe(404);
    const rotated = await admin('POST', '/admin/resources/res_stylist_ben/calendar-feed/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.body.url).not.toBe(r.body.url);
    expect((await feedOf(r.body.url)).status).toBe(404);
    expect((await feedOf(rotated.body.url)).status).toBe(200);
  });

  it('an unknown resource answers not_found, and only the business may ask', async () => {
    expect((await admin('GET', '/admin/resources/res_nobody/calendar-feed')).status).toBe(404);
    expect((await t.call('GET', '/admin/resources/res_stylist_ben/calendar-feed')).status).toBe(401);
  });
});

describe("a feed's secret token never reaches the log", () => {
  it('a debug-level log of a feed read shows the call and its resource, never the token', async () => {
    const lines: string[] = [];
    const log = createLogger({
      level: 'debug',
      format: 'json',
      destination: { write: (l: string) => void lines.push(l) },
    });
    const s = await startTestServer({ log });
    try {
      const r = await s.call('GET', '/admin/resources/res_stylist_ava/calendar-feed', undefined, {
        apiKey: ADMIN_KEY,
        profile: null,
      });
      const u = new URL(r.body.url);
      const token = u.searchParams.get('token')!;
      expect(token.length).toBeGreaterThan(20);
      lines.length = 0;
      const res = await fetch(`${s.url}${u.pathname}${u.search}`);
      expect(res.status).toBe(200);
      await res.text();
      const text = lines.join('');
      // The debug line with the call's input is there (the test would prove nothing without it).
      expect(text).toContain('"msg":"call received"');
      expect(text).toContain('"operation":"calendar_feed"');
      expect(text).toContain('res_stylist_ava.ics');
      expect(text).not.toContain(token);
    } finally {
      await s.close();
    }
  });
});
