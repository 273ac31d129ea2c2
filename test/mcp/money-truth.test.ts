/**
 * The money an assistant reads in a result's text is the money its structured result carries
 * (issue 36, item 1): a booking paid on the checkout page reads as paid, its cancellation as a
 * refund of what was paid, and a deposit's checkout page says what is left for the appointment.
 * Through the official SDK client, reading only `content[].text`; the pages through HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BUYER, day } from '../support/server.js';
import { meta, openEnv, type McpEnv, type ToolResult } from './helpers.js';

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env.close());

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
const call = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  env.conn.call(tool, { ...args, ...meta(undefined, extra) });
const write = (tool: string, args: Record<string, unknown>) => call(tool, args, { idempotency_key: randomUUID() });

async function bookFirst(service_id: string, n: number): Promise<ToolResult> {
  const q = await call('usp_availability_query', { service_id, start_date: day(n), end_date: day(n) });
  return write('usp_bookings_create', { service_id, slot_id: q.structuredContent.slots[0].id, buyer: BUYER });
}

/** The buyer's click on the sandbox checkout page (its CSRF cookie and form token, then the post). */
async function payOnPage(bookingId: string): Promise<void> {
  const url = `${env.server!.url}/checkout/${bookingId}`;
  const page = await fetch(url, { headers: { Accept: 'text/html' } });
  const token = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html', cookie },
    body: `choice=pay&csrf=${token}`,
    redirect: 'manual',
  });
  expect(res.status).toBeLessThan(400);
}

describe('the text states the money the booking carries', () => {
  it('a massage paid on the checkout page reads as paid, with nothing left for the appointment', async () => {
    const made = await bookFirst('svc_massage_60', 3);
    const id = made.structuredContent.booking.id;
    await payOnPage(id);
    const got = await call('usp_bookings_get', { booking_id: id });
    const t = text(got);
    expect(t).toContain('Paid $110.00 online');
    expect(t).toContain('payment.status paid');
    expect(t).toContain('nothing is left to pay at the appointment');
    expect(t).not.toContain('Paid $0.00');
    expect(t).not.toMatch(/\$110\.00 is still paid at the appointment/);
  });

  it('cancelling it says what was paid and that it is refunded, in the same words as its payment block', async () => {
    const made = await bookFirst('svc_massage_60', 5);
    const id = made.structuredContent.booking.id;
    await payOnPage(id);
    const r = await write('usp_bookings_cancel', { booking_id: id, reason: 'plans changed' });
    const t = text(r);
    expect(r.structuredContent.booking.cancellation.refund_amount).toBe(11000);
    expect(t).toContain('$110.00 was paid online (payment.status refunded)');
    expect(t).toMatch(/no fee, refund \$110\.00, made \(payment\.status refunded\)/);
  });

  it("a deposit's checkout page says $45.00 due now and $135.00 at the appointment, as the booking's text does", async () => {
    const made = await bookFirst('svc_bridal_trial', 6);
    const b = made.structuredContent.booking;
    expect(text(made)).toContain('That is the deposit; the other $135.00 is paid at the appointment.');
    const page = await (
      await fetch(`${env.server!.url}/checkout/${b.id}`, { headers: { Accept: 'text/html' } })
    ).text();
    expect(page).toMatch(/Due now<\/td><td>\$45\.00/);
    expect(page).toMatch(/To pay at the appointment<\/td><td>\$135\.00/);
    expect(page).not.toContain('$180.00</td></tr><tr class="total"');
    await payOnPage(b.id);
    const after = text(await call('usp_bookings_get', { booking_id: b.id }));
    expect(after).toContain(
      'Paid $45.00 online (payment.status deposit_paid); $135.00 is still paid at the appointment.',
    );
    const booking = await (
      await fetch(`${env.server!.url}/booking/${b.id}`, { headers: { Accept: 'text/html' } })
    ).text();
    expect(booking).toMatch(/To pay at the appointment<\/td><td>\$135\.00/);
  });
});
