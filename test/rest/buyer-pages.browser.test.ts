/**
 * The buyer's pages in a real browser (Debian's chromium driven by playwright-core): a paid
 * booking from its continue_url through payment to the booking page, and a manual booking through
 * the business's confirmation, at phone (390x844) and desktop (1280x800) widths. Every page runs
 * with JavaScript off, loads nothing from another origin, and passes axe-core with no serious or
 * critical violation. Screenshots land in a temporary folder, or in docs/screenshots/ (referenced
 * from the README) when USP_SCREENSHOTS=1, so an ordinary run leaves the tree clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';

noteWithoutChromium('buyer-pages.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

describe.skipIf(!HAVE_CHROMIUM)('the buyer pages in a browser (skipped without /usr/bin/chromium)', () => {
  let t: TestServer;
  let browser: import('playwright-core').Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestServer();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page with JavaScript off that records every request leaving our origin and every CSP complaint. */
  async function open(size: keyof typeof SIZES) {
    const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    const foreign: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url)) foreign.push(r.url());
    });
    // CSP violations and failed loads of our own assets show up here (the browser's own favicon probe aside).
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico'))
        consoleErrors.push(`${m.text()} ${m.location().url}`);
    });
    return { context, page, foreign, consoleErrors };
  }

  /** axe-core in a context of its own that may run script (bypassCSP), on the same URL: one page per width, reused. */
  const axePages = new Map<keyof typeof SIZES, import('playwright-core').Page>();
  async function axe(url: string, size: keyof typeof SIZES) {
    let page = axePages.get(size);
    if (!page) {
      page = await (await axeContext(browser, { viewport: SIZES[size] })).newPage();
      axePages.set(size, page);
    }
    await page.goto(url);
    return axeViolations(page);
  }

  async function snap(page: import('playwright-core').Page, name: string, size: string) {
    await photograph(page, `${name}-${size}`);
  }

  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: a paid booking from continue_url through payment to the booking page`, async () => {
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_massage_60',
        start_date: day(3),
        end_date: day(3),
      });
      const slot = q.body.slots.find((s: any) => s.start.includes(size === 'phone' ? 'T10:00' : 'T14:00'));
      const b = await t.call('POST', '/bookings', { service_id: 'svc_massage_60', slot_id: slot.id, buyer: BUYER });
      const continueUrl = new URL(b.body.booking.actions[0].continue_url);
      const url = t.url + continueUrl.pathname;
      const { context, page, foreign, consoleErrors } = await open(size);

      await page.goto(url);
      expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
      const checkout = await page.textContent('main');
      expect(checkout).toContain('Maple & Pine Salon and Studio');
      expect(checkout).toContain('Payment needed by');
      expect(checkout).toContain('214 Hudson Street');
      expect(await axe(url, size)).toEqual([]);
      await snap(page, 'checkout', size);

      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForURL(`${t.url}/booking/${b.body.booking.id}`);
      const booked = await page.textContent('main');
      expect(booked).toContain('Confirmed');
      expect(booked).toContain('Add to calendar');
      expect(await axe(page.url(), size)).toEqual([]);
      await snap(page, 'booking-paid', size);

      const cal = await page.request.get(`${t.url}/booking/${b.body.booking.id}/calendar.ics`);
      expect(cal.headers()['content-type']).toContain('text/calendar');
      expect(foreign).toEqual([]);
      expect(consoleErrors, consoleErrors.join('; ')).toEqual([]);
      await context.close();
    }, 60_000);

    it(`${size}: a manual booking waits for the business, and a reload after it confirms shows Confirmed`, async () => {
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_color_consult',
        start_date: day(4),
        end_date: day(4),
      });
      const slot = size === 'phone' ? q.body.slots[0] : q.body.slots[q.body.slots.length - 1];
      const b = await t.call('POST', '/bookings', { service_id: 'svc_color_consult', slot_id: slot.id, buyer: BUYER });
      const url = `${t.url}/booking/${b.body.booking.id}`;
      const { context, page, foreign } = await open(size);
      await page.goto(url);
      expect(await page.textContent('main')).toContain('Waiting for Maple & Pine Salon and Studio to confirm');
      expect(await axe(url, size)).toEqual([]);
      await snap(page, 'booking-pending', size);

      expect((await t.call('POST', `/bookings/${b.body.booking.id}/confirm`, {}, { apiKey: ADMIN_KEY })).status).toBe(
        200,
      );
      await page.reload();
      expect(await page.textContent('main')).toContain('Confirmed');
      expect(await axe(url, size)).toEqual([]);
      await snap(page, 'booking-confirmed', size);
      expect(foreign).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('the expired and abandoned pages pass axe-core too', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: day(5),
      end_date: day(5),
    });
    const b = await t.call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    const url = `${t.url}/checkout/${b.body.booking.id}`;
    const { context, page } = await open('phone');
    await page.goto(url);
    await page.getByRole('button', { name: 'Not now' }).click();
    expect(await page.textContent('main')).toContain('Payment not made');
    await snap(page, 'checkout-abandoned', 'phone');
    t.clock.set(Date.parse(b.body.booking.actions[0].expires_at) + 1000);
    await page.goto(url);
    expect(await page.textContent('main')).toContain('This payment link has expired');
    expect(await axe(url, 'phone')).toEqual([]);
    await snap(page, 'checkout-expired', 'phone');
    await context.close();
  }, 60_000);
});
