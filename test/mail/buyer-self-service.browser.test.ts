/**
 * The buyer helps herself, in a real browser (issue 37): she opens the booking link of her mail,
 * cancels within the free window, then moves another booking after it, the fee shown before she
 * confirms. Every page passes axe-core at phone and desktop widths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';

noteWithoutChromium('buyer self-service pages');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/** Both engines' stores: SQLite always, PostgreSQL when USP_TEST_PG_URL names one. */
const ENGINES = [
  { name: 'SQLite', pg: false },
  { name: 'PostgreSQL', pg: true },
] as const;
if (!PG_URL) noteSkipped('buyer self-service pages on PostgreSQL');

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES.filter((e) => !e.pg || PG_URL))(
  'the buyer cancels and moves her bookings from the mailed link ($name)',
  (engine) => {
    let browser: Browser;
    let t: TestServer;
    let sink: SmtpSink;
    const schema = schemaName('selfservice');
    beforeAll(async () => {
      browser = await launchBrowser();
      sink = await startSmtpSink();
      t = await startTestServer({
        ...(engine.pg ? { db: urlWithSchema(schema) } : {}),
        mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
      });
    }, 90_000);
    afterAll(async () => {
      await t?.close();
      await sink?.close();
      await browser?.close();
      if (engine.pg) await dropSchema(schema);
    });

    async function book(n: number, email: string) {
      const slot = (
        await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(n), end_date: day(n) })
      ).body.slots[0];
      const b = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: { ...BUYER, email },
      });
      expect(b.status).toBe(201);
      await t.server.mailWorker!.tick();
      await t.server.mailWorker!.tick();
      const id = b.body.booking.id as string;
      const m = new RegExp(`(\\S+/booking/${id}\\?token=bsc_[a-z2-7]+)`).exec(String(sink.to(email)[0]?.text));
      expect(m, 'the booking link in the mail').not.toBeNull();
      return { id, link: m![1] };
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

    /**
     * The cancel page's two answers side by side as one pair: the same height, and on one line at
     * 1280 px or one above the other, the same width, at 390 px.
     */
    async function aligned(url: string, size: keyof typeof SIZES) {
      const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(url);
      const yes = (await page.locator('button:has-text("Yes, cancel my booking")').boundingBox())!;
      const keep = (await page.locator('a:has-text("Keep my booking")').boundingBox())!;
      await photograph(page, `buyer-cancel-${size}`, { fullPage: false });
      await context.close();
      const near = (a: number, b: number) => Math.abs(a - b) < 1;
      return {
        sameHeight: near(yes.height, keep.height),
        lined: near(yes.y, keep.y) || (near(yes.x, keep.x) && near(yes.width, keep.width)),
      };
    }

    it('cancels within the free window, then moves another booking with the fee shown first; axe-clean at 390 px and 1280 px', async () => {
      const first = await book(3, 'first@example.com');
      const second = await book(1, 'second@example.com');

      const context = await browser.newContext({ viewport: SIZES.phone, javaScriptEnabled: false, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(first.link);
      const main = (await page.textContent('main')) ?? '';
      expect(main).toContain('+1 212 555 0147');
      expect(main).toContain('hello@maple-pine.example');
      for (const size of ['phone', 'desktop'] as const) expect(await axe(first.link, size)).toEqual([]);
      await page.click('text=Cancel this booking');
      for (const size of ['phone', 'desktop'] as const)
        expect(await aligned(page.url(), size)).toEqual({ sameHeight: true, lined: true });
      const cancelPage = (await page.textContent('main')) ?? '';
      expect(cancelPage).toContain('Cancelling now is free');
      // The time and the deadline in the business's zone, the zone named (free until 24 hours before the start).
      expect(cancelPage).toMatch(/\d:\d\d\s[AP]M, New York time/);
      expect(cancelPage).toMatch(/Free to cancel until \w{3}, \w{3} \d+, \d+:\d\d\s[AP]M, New York time\./);
      for (const size of ['phone', 'desktop'] as const) expect(await axe(page.url(), size)).toEqual([]);
      await page.click('button:has-text("Yes, cancel my booking")');
      expect(await page.textContent('h1')).toContain('Your booking is canceled');
      expect((await t.call('GET', `/bookings/${first.id}`)).body.booking).toMatchObject({
        status: 'canceled',
        cancellation: { fee: 0 },
      });

      await page.goto(second.link);
      await page.click('text=Move to another time');
      const move = (await page.textContent('main')) ?? '';
      expect(move).toContain('$10.00');
      expect(move).toMatch(/Now: .*\d:\d\d\s[AP]M, New York time/);
      expect(move).toContain('Times in New York time.');
      for (const size of ['phone', 'desktop'] as const) expect(await axe(page.url(), size)).toEqual([]);
      const chosen = await page.getAttribute('input[name=slot_id] >> nth=1', 'value');
      await page.check('input[name=slot_id] >> nth=1');
      await page.click('button:has-text("Move my booking")');
      expect(new URL(page.url()).pathname).toBe(`/booking/${second.id}`);
      expect((await t.call('GET', `/bookings/${second.id}`)).body.booking.slot.id).toBe(chosen);
      await context.close();
    }, 120_000);
  },
);
