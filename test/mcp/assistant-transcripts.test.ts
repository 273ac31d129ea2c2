/**
 * An assistant's walk through five ordinary requests, reading only `content[].text` from the
 * official SDK client (issue 36): a plain booking, a paid one booked at night for the next morning,
 * a deposit, a request the business confirms by hand, and a payment link that lapsed and is renewed.
 * Each step's text is printed (USP_TRANSCRIPT=1 prints it all), and each walk checks that the text
 * alone says what the person must hear: the time and zone, what to pay, by when, who tells them, and
 * what comes next. Nothing here reads structuredContent except to pick ids an assistant reads in the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BUYER, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, nyDate, type McpConn, type ToolResult } from './helpers.js';

const NIGHT = Date.parse('2026-12-02T04:00:00Z'); // 11 PM in New York, Tue 1 Dec 2026
const WRITES = new Set([
  'usp_availability_hold',
  'usp_bookings_create',
  'usp_bookings_cancel',
  'uspserver_bookings_renew_payment',
]);
const transcript: string[] = [];

let t: TestServer;
let conn: McpConn;
beforeAll(async () => {
  t = await startTestServer();
  conn = await connectMcp('v2', 'memory', t);
});
afterAll(async () => {
  if (process.env.USP_TRANSCRIPT === '1') console.log(transcript.join('\n'));
  await conn.close();
  await t.close();
});

/** One step: the call as an assistant makes it, and the only thing it reads back, the text. */
async function say(
  request: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ text: string; r: ToolResult }> {
  const r = await conn.call(tool, {
    ...args,
    ...meta(undefined, WRITES.has(tool) ? { idempotency_key: randomUUID() } : {}),
  });
  const text = r.content.map((c) => c.text).join('\n');
  transcript.push(`\n>>> ${request}\n--- ${tool} ${JSON.stringify(args)}\n${text}`);
  return { text, r };
}

async function bookFirst(request: string, service: string, date: string, buyer = BUYER) {
  const q = await say(request, 'usp_availability_query', { service_id: service, start_date: date, end_date: date });
  const slot = q.r.structuredContent.slots[0];
  expect(q.text).toContain(slot.id);
  return say(request, 'usp_bookings_create', { service_id: service, slot_id: slot.id, buyer });
}

describe('five requests, read from the text alone', () => {
  it('"Book me a haircut on Friday": the time with its zone, confirmed, paid at the appointment, the terms and the mail', async () => {
    const info = await say('Book me a haircut on Friday', 'usp_services_get', { service_id: 'svc_haircut' });
    expect(info.text).toMatch(/Times are in .*America\/New_York/);
    const b = await bookFirst('Book me a haircut on Friday', 'svc_haircut', nyDate(t.clock.now(), 3));
    expect(b.text).toMatch(/status confirmed/);
    expect(b.text).toContain('$65.00 is paid at the appointment');
    expect(b.text).toMatch(/Cancel: free until .* E[SD]T, then \$20\.00/);
  });

  it('"Book a massage tomorrow morning" at 11 PM: the window before booking, the link and its deadline an hour before the start', async () => {
    t.clock.set(NIGHT);
    const card = await say('Book a massage tomorrow morning', 'usp_services_get', { service_id: 'svc_massage_60' });
    expect(card.text).toContain('closing 1 hour before the start if that comes sooner');
    const b = await bookFirst('Book a massage tomorrow morning', 'svc_massage_60', nyDate(NIGHT, 1));
    expect(b.text).toMatch(
      /NOT confirmed and NOT paid yet: the person must pay \$110\.00 at \S+ before Wed, Dec 2, 2026, 9:00 AM EST/,
    );
  });

  it('"I want the bridal trial, what do I pay now?": the deposit now, the rest at the appointment, and what a late cancel keeps', async () => {
    const card = await say('I want the bridal trial, what do I pay now?', 'usp_services_get', {
      service_id: 'svc_bridal_trial',
    });
    expect(card.text).toMatch(/\$45\.00 deposit/);
    const b = await bookFirst('Book the bridal trial', 'svc_bridal_trial', nyDate(t.clock.now(), 4));
    expect(b.text).toMatch(/must pay \$45\.00/);
    expect(b.text).toMatch(/That is the deposit; the other \$\d+\.\d\d is paid at the appointment/);
  });

  it('"Book a colour consultation": pending, by when the business answers, and what happens if it does not', async () => {
    const b = await bookFirst('Book a colour consultation', 'svc_color_consult', nyDate(t.clock.now(), 3));
    expect(b.text).toMatch(/status pending/);
    expect(b.text).toMatch(/Waiting for the business to confirm by .*; it is not confirmed yet/);
    expect(b.text).toMatch(/If the business has not answered by .*, the request lapses/);
  });

  it('"I missed the payment link, can I still have that massage?": canceled, renewed with a fresh link under a new id', async () => {
    const b = await bookFirst('Book a massage on Saturday', 'svc_massage_60', nyDate(t.clock.now(), 4));
    const id = b.text.match(/Booking (bkg_\w+)/)![1];
    t.clock.set(Date.parse(b.r.structuredContent.booking.expires_at) + 60_000);
    const got = await say('I missed the payment link, can I still have that massage?', 'usp_bookings_get', {
      booking_id: id,
    });
    expect(got.text).toMatch(/status canceled/);
    expect(got.text).toContain(`uspserver_bookings_renew_payment with booking_id ${id}`);
    const renewed = await say('Yes, renew it', 'uspserver_bookings_renew_payment', { booking_id: id });
    expect(renewed.text).toMatch(/made again as bkg_\w+ with a fresh payment link/);
    expect(renewed.text).toMatch(/must pay \$110\.00 at \S+ before /);
    const again = await say('Renew it again', 'uspserver_bookings_renew_payment', { booking_id: id });
    expect(again.text).toMatch(/already made again as bkg_\w+/);
  });
});
