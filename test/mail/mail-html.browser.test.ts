/**
 * The HTML mails as a mail program shows them: every kind a booking sends, rendered in Chromium
 * from what the SMTP server received, passes axe-core with no serious or critical violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { axeViolations, HAVE_CHROMIUM, launchBrowser, noteWithoutChromium } from '../support/browser.js';

noteWithoutChromium('mail HTML');

describe.skipIf(!HAVE_CHROMIUM)('HTML mails are accessible', () => {
  let browser: Browser;
  let t: TestServer;
  let sink: SmtpSink;
  beforeAll(async () => {
    browser = await launchBrowser();
    sink = await startSmtpSink();
    t = await startTestServer({ mail: { smtpUrl: sink.url, startWorker: false } });
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await sink?.close();
    await browser?.close();
  });

  it('confirmation, move, cancellation, payment request and waitlist offer: no serious or critical axe violation', async () => {
    const q = (service: string, n: number) =>
      t
        .call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) })
        .then((r) => r.body.slots);
    const b = (
      await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: (await q('svc_haircut', 3))[0].id,
        buyer: BUYER,
      })
    ).body.booking;
    await t.call('POST', `/bookings/${b.id}/reschedule`, { slot_id: (await q('svc_haircut', 4))[1].id });
    await t.call('POST', `/bookings/${b.id}/cancel`, {});
    await t.call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: (await q('svc_massage_60', 3))[0].id,
      buyer: BUYER,
    });
    const yoga = (await q('svc_yoga_class', 8))[0];
    const big = (
      await t.call('POST', '/bookings', {
        service_id: 'svc_yoga_class',
        slot_id: yoga.id,
        buyer: { ...BUYER, email: 'party@example.com' },
        party_size: 12,
      })
    ).body.booking;
    await t.call('POST', '/waitlist', {
      service_id: 'svc_yoga_class',
      slot_id: yoga.id,
      buyer: { ...BUYER, email: 'first@example.com' },
    });
    await t.call('POST', `/bookings/${big.id}/cancel`, {}, { profile: null, apiKey: ADMIN_KEY });
    await t.server.mailWorker!.tick();
    await t.server.mailWorker!.tick();
    const kinds = new Set(sink.received.map((m) => String(m.headers.get('x-usp-message-kind'))));
    expect([...kinds].sort()).toEqual([
      'booking_canceled',
      'booking_confirmed',
      'booking_rescheduled',
      'payment_needed',
      'waitlist_offer',
    ]);
    const context = await browser.newContext({ javaScriptEnabled: true, bypassCSP: true });
    const problems: string[] = [];
    for (const m of sink.received) {
      const page = await context.newPage();
      await page.setContent(String(m.html));
      for (const v of await axeViolations(page)) problems.push(`${m.headers.get('x-usp-message-kind')}: ${v}`);
      await page.close();
    }
    await context.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
