/**
 * The catalog screens in a real browser (JavaScript off, as the dashboard works without it): create
 * a service, give a stylist new hours, and see the slots change on both doors (REST and MCP); a
 * refused form shows the business file's message naming the field; a form without the session's
 * CSRF token changes nothing; every screen is axe-clean and fits phone and desktop widths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { day, startTestServer, type TestServer } from '../support/server.js';

noteWithoutChromium('catalog.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';
const SCREENS = [
  '/admin/ui/services',
  '/admin/ui/staff',
  '/admin/ui/locations',
  '/admin/ui/business',
  '/admin/ui/categories',
];

describe.skipIf(!HAVE_CHROMIUM)(
  'the business edits its catalog from the dashboard (skipped without /usr/bin/chromium)',
  () => {
    let t: TestServer;
    let mcp: McpConn;
    let browser: import('playwright-core').Browser;

    beforeAll(async () => {
      browser = await launchBrowser();
      t = await startTestServer();
      await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
      mcp = await connectMcp('v2', 'http', t);
    }, 90_000);
    afterAll(async () => {
      await mcp?.close();
      await browser?.close();
      await t?.close();
    });

    async function signedIn(size: keyof typeof SIZES = 'desktop') {
      const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`${t.url}/admin`);
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/admin');
      return { context, page };
    }

    const restSlots = async (service: string, extra: Record<string, unknown> = {}) =>
      (
        await t.call(
          'POST',
          '/availability/query',
          { service_id: service, start_date: day(1), end_date: day(1), limit: 500, ...extra },
          { profile: null },
        )
      ).body.slots as any[];
    const mcpSlots = async (service: string, extra: Record<string, unknown> = {}) =>
      (
        await mcp.call('usp_availability_query', {
          service_id: service,
          start_date: day(1),
          end_date: day(1),
          limit: 500,
          ...extra,
          ...meta(),
        })
      ).structuredContent.slots as any[];

    it('a service created on the Services screen is bookable on REST and MCP alike', async () => {
      const { context, page } = await signedIn();
      expect(await restSlots('svc_fringe')).toEqual([]);
      await page.goto(`${t.url}/admin/ui/services`);
      await page.fill('#service-new input[name=id]', 'svc_fringe');
      await page.fill('#service-new input[name=name]', 'Fringe trim');
      await page.selectOption('#service-new select[name=template]', 'svc_haircut');
      await page.fill('#service-new input[name=amount]', '15.00');
      await page.fill('#service-new input[name=minutes]', '15');
      await page.click('#service-new button[type=submit]');
      expect(await page.textContent('.flash')).toContain('Added Fringe trim: price $15.00');
      expect(await page.textContent('main')).toContain('Fringe trim');
      const rest = await restSlots('svc_fringe');
      expect(rest.length).toBeGreaterThan(0);
      expect(await mcpSlots('svc_fringe')).toEqual(rest);
      expect(
        (await t.call('GET', '/services/svc_fringe', undefined, { profile: null })).body.service.pricing.amount,
      ).toBe(1500);
      await context.close();
    });

    it("a stylist's new hours on the Staff screen change her slots on both doors", async () => {
      const { context, page } = await signedIn('phone');
      const before = await restSlots('svc_haircut', { resource_id: 'res_stylist_ben' });
      expect(before.some((s) => !/T1[3-6]:/.test(s.start))).toBe(true);
      await page.goto(`${t.url}/admin/ui/staff`);
      const form = page.locator('form[action="/admin/ui/staff/res_stylist_ben"]');
      for (const d of ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']) {
        await form.locator(`input[name=${d}_opens_0]`).fill('13:00');
        await form.locator(`input[name=${d}_closes_0]`).fill('17:00');
      }
      await form.locator('button[type=submit]').click();
      expect(await page.textContent('.flash')).toContain('Saved');
      const rest = await restSlots('svc_haircut', { resource_id: 'res_stylist_ben' });
      expect(rest.length).toBeGreaterThan(0);
      expect(rest.every((s) => /T1[3-6]:/.test(s.start))).toBe(true);
      expect(await mcpSlots('svc_haircut', { resource_id: 'res_stylist_ben' })).toEqual(rest);
      await photograph(page, 'dashboard-staff-phone', { fullPage: false });
      await context.close();
    }, 60_000);

    it('a refused form shows the business file message naming the field, and nothing changes', async () => {
      const { context, page } = await signedIn();
      await page.goto(`${t.url}/admin/ui/locations`);
      await page.fill('#location-new input[name=id]', 'bad id with spaces');
      await page.fill('#location-new input[name=name]', 'Nowhere');
      await page.click('#location-new button[type=submit]');
      expect(await page.textContent('.flash.bad')).toMatch(/^id: must be 1-128 characters/);
      expect(await page.textContent('main')).not.toContain('Nowhere');
      await context.close();
    });

    it('a form posted without the session CSRF token is refused and changes nothing', async () => {
      const { context } = await signedIn();
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const res = await fetch(`${t.url}/admin/ui/locations`, {
        method: 'POST',
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded', origin: t.url },
        body: 'id=loc_x&name=X',
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
      expect(t.server.biz.def.business.locations.some((l) => l.id === 'loc_x')).toBe(false);
      await context.close();
    });

    it.each(['phone', 'desktop'] as const)(
      '%s: every catalog screen is axe-clean and has no horizontal scroll',
      async (size) => {
        const { context, page } = await signedIn(size);
        const c2 = await axeContext(browser, { viewport: SIZES[size] });
        await c2.addCookies(await context.cookies());
        const p2 = await c2.newPage();
        for (const path of SCREENS) {
          await page.goto(`${t.url}${path}`);
          const overflow = await page.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          expect(overflow, path).toBeLessThanOrEqual(0);
          await p2.goto(`${t.url}${path}`);
          expect(await axeViolations(p2), path).toEqual([]);
        }
        await c2.close();
        await context.close();
      },
      180_000,
    );
  },
);
