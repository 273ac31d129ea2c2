/**
 * The buyer's pages (checkout, paid, abandoned, expired, booking page) say what was bought, from
 * whom, where, when, on what terms and in what state, in the buyer's language, under a strict CSP;
 * the booking's calendar file is RFC 5545 that a calendar library parses, with a stable UID, a
 * SEQUENCE that rises on every reschedule and METHOD:CANCEL after a cancel.
 */
import ical from 'node-ical';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const HTML = { Accept: 'text/html' };

async function book(t: TestServer, service: string, n = 3, extra: Record<string, unknown> = {}) {
  const q = await t.call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) });
  const slot = q.body.slots.find((s: any) => s.start.includes('T10:00')) ?? q.body.slots[0];
  const b = await t.call('POST', '/bookings', { service_id: service, slot_id: slot.id, buyer: BUYER, ...extra });
  expect(b.status).toBe(201);
  return { booking: b.body.booking, slots: q.body.slots };
}

async function get(t: TestServer, path: string, headers: Record<string, string> = HTML) {
  const res = await fetch(t.url + path, { headers, redirect: 'manual' });
  return { res, text: await res.text() };
}

/** The buyer's click on the checkout page: its CSRF cookie and form token, then the post. */
async function pay(t: TestServer, id: string, choice = 'pay') {
  const page = await fetch(`${t.url}/checkout/${id}`, { headers: HTML });
  const token = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
  return fetch(`${t.url}/checkout/${id}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html', cookie },
    body: `choice=${choice}&csrf=${token}`,
    redirect: 'manual',
  });
}

describe('the checkout page says what is bought, from whom, where, when, on what terms and in what state', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('names the business, the address with a map link, the staff and room, the time in words, the price and the terms', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    const { res, text } = await get(t, `/checkout/${booking.id}`, { ...HTML, 'Accept-Language': 'en-GB,en;q=0.8' });
    expect(res.status).toBe(200);
    expect(text).toContain('Maple &amp; Pine Salon and Studio');
    expect(text).toMatch(/214 Hudson Street/);
    expect(text).toContain('https://www.openstreetmap.org/?mlat=40.7251&amp;mlon=-74.0079');
    for (const r of booking.resources) expect(text).toContain(r.name);
    expect(text).toContain('Friday, 4 December 2026, 10:00–11:00');
    expect(text).toContain('New York time');
    expect(text).toContain('1 hour');
    expect(text).toContain('$110.00');
    expect(text).toContain(
      'Free cancellation until 24 hours before the start; after that a $55.00 fee applies. No cancellation in the last 2 hours.',
    );
    expect(text).toMatch(/Payment needed by Wed,? 2 Dec,? \d\d:\d\d/);
    expect(text).not.toContain(BUYER.email);
    expect(text).not.toContain(BUYER.last_name);
    expect(text).not.toContain('<script');
  });

  it('formats for the buyer language, and falls back to the business locale', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    expect((await get(t, `/checkout/${booking.id}`, { ...HTML, 'Accept-Language': 'fr-FR,fr;q=0.9' })).text).toContain(
      'vendredi 4 décembre 2026',
    );
    expect((await get(t, `/checkout/${booking.id}`, { ...HTML, 'Accept-Language': 'xx-nonsense;q=1' })).text).toContain(
      'Friday, December 4, 2026',
    );
    expect((await get(t, `/checkout/${booking.id}`, HTML)).text).toContain('Friday, December 4, 2026');
  });

  it('answers with a strict Content-Security-Policy and loads nothing from another origin', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    const { res, text } = await get(t, `/checkout/${booking.id}`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(text).not.toMatch(/(src|href)="https?:\/\/(?!www\.openstreetmap\.org)/);
    expect(text).not.toMatch(/<link[^>]+href="https?:/);
    const css = await fetch(t.url + '/assets/buyer-pages.css');
    expect(css.headers.get('content-type')).toContain('text/css');
  });

  it('after paying the buyer lands on the booking page, which says Confirmed and offers the calendar', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    const r = await pay(t, booking.id);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`/booking/${booking.id}`);
    const { text } = await get(t, `/booking/${booking.id}`);
    expect(text).toContain('>Confirmed<');
    expect(text).toContain(`/booking/${booking.id}/calendar.ics`);
    expect(text).toMatch(/Paid<\/td><td>\$110\.00/);
    expect((await get(t, `/checkout/${booking.id}`)).text).toContain('Payment received');
  });

  it('abandoning without a return URL says the payment was not made and keeps the pay button', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    const r = await pay(t, booking.id, 'cancel');
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).toContain('Payment not made');
    expect(text).toContain('value="pay"');
  });

  it('an expired link says so (410) and still names what it was for', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_massage_60');
    t.clock.set(Date.parse(booking.actions[0].expires_at) + 1000);
    const { res, text } = await get(t, `/checkout/${booking.id}`);
    expect(res.status).toBe(410);
    expect(text).toContain('This payment link has expired');
    expect(text).toContain('Deep Tissue Massage');
    expect(text).toContain('>Canceled<');
  });
});

describe('the booking page follows the booking', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('a manual booking reads "Waiting for the business to confirm", then Confirmed after the business confirms, then Canceled', async () => {
    t = await startTestServer();
    const { booking } = await book(t, 'svc_color_consult');
    expect(booking.status).toBe('pending');
    let page = (await get(t, `/booking/${booking.id}`)).text;
    expect(page).toContain('Waiting for Maple &amp; Pine Salon and Studio to confirm');
    expect(page).not.toContain('calendar.ics');
    const ics = await get(t, `/booking/${booking.id}/calendar.ics`, {});
    expect(ics.res.status).toBe(409);
    expect((await t.call('POST', `/bookings/${booking.id}/confirm`, {}, { apiKey: ADMIN_KEY })).status).toBe(200);
    page = (await get(t, `/booking/${booking.id}`)).text;
    expect(page).toContain('>Confirmed<');
    expect(page).toContain('calendar.ics');
    expect(
      (await t.call('POST', `/bookings/${booking.id}/cancel`, { reason: 'closed' }, { apiKey: ADMIN_KEY })).status,
    ).toBe(200);
    page = (await get(t, `/booking/${booking.id}`)).text;
    expect(page).toContain('>Canceled<');
    expect(page).toContain('Remove from calendar');
  });

  it('an unknown booking has no page (404), and JSON callers get the view', async () => {
    t = await startTestServer();
    expect((await get(t, '/booking/bkg_nope')).res.status).toBe(404);
    const { booking } = await book(t, 'svc_haircut');
    const json = await t.call('GET', `/booking/${booking.id}`);
    expect(json.status).toBe(200);
    expect(json.body.booking_page).toMatchObject({
      business_name: 'Maple & Pine Salon and Studio',
      status: 'confirmed',
      zone: 'America/New_York',
      duration_minutes: 45,
    });
    expect(JSON.stringify(json.body)).not.toContain(BUYER.email);
  });
});

describe('the calendar file is RFC 5545 a calendar library reads, and follows reschedules and cancellation', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  const parse = (text: string) => {
    const cal = ical.sync.parseICS(text);
    const events = Object.values(cal).filter((c: any) => c.type === 'VEVENT') as any[];
    expect(events).toHaveLength(1);
    return { event: events[0], method: (cal.vcalendar as any)?.method };
  };

  it('keeps its UID, raises SEQUENCE on every reschedule and cancels with METHOD:CANCEL', async () => {
    t = await startTestServer();
    const { booking, slots } = await book(t, 'svc_haircut', 5);
    const path = `/booking/${booking.id}/calendar.ics`;
    const first = await get(t, path, {});
    expect(first.res.headers.get('content-type')).toContain('text/calendar');
    expect(first.text.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    const a = parse(first.text);
    expect(a.method).toBe('PUBLISH');
    expect(a.event.uid).toBe(`${booking.id}@${new URL(t.url).host}`);
    expect(a.event.sequence).toBe(0);
    expect(new Date(a.event.start).toISOString()).toBe(new Date(booking.slot.start).toISOString());
    expect(new Date(a.event.end).toISOString()).toBe(new Date(booking.slot.end).toISOString());
    expect(a.event.summary).toBe('Haircut & Style (Maple & Pine Salon and Studio)');
    expect(a.event.location).toBe('Maple & Pine Downtown Salon, 214 Hudson Street, New York, NY 10013');

    const later = slots.filter((s: any) => s.start > booking.slot.start && !s.start.includes('T10:00'));
    for (const [i, s] of [later[4], later[12]].entries()) {
      const r = await t.call('POST', `/bookings/${booking.id}/reschedule`, { slot_id: s.id });
      expect(r.status).toBe(200);
      const p = parse((await get(t, path, {})).text);
      expect(p.event.uid).toBe(a.event.uid);
      expect(p.event.sequence).toBe(i + 1);
      expect(new Date(p.event.start).toISOString()).toBe(new Date(s.start).toISOString());
    }
    expect((await t.call('POST', `/bookings/${booking.id}/cancel`, {})).status).toBe(200);
    const c = parse((await get(t, path, {})).text);
    expect(c.method).toBe('CANCEL');
    expect(c.event.status).toBe('CANCELLED');
    expect(c.event.uid).toBe(a.event.uid);
    expect(c.event.sequence).toBe(3);
  });
});
