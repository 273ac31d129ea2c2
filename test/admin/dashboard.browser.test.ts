/**
 * The business's dashboard in a real browser (Debian's chromium driven by playwright-core): sign in,
 * see a booking made through the REST door in the calendar, confirm a pending booking and watch the
 * platform's webhook receiver get booking.confirmed, add time off and see the slot leave
 * availability on both doors, retry a failed delivery from the log. Every screen passes axe-core
 * with no serious or critical violation at phone and desktop widths, runs no script and loads
 * nothing from another origin. Screenshots go to docs/screenshots/ only when USP_SCREENSHOTS=1.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addBusinessUser } from '../../src/server/admin-sessions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { ADMIN_KEY, BUYER, book, day, firstSlot, startWebhookServer, waitFor, type WebhookTestServer } from '../webhooks/helpers.js';
import { AXE, HAVE_CHROMIUM, SHOTS, launchBrowser, noteWithoutChromium } from '../support/browser.js';

noteWithoutChromium('dashboard.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_CHROMIUM)('the business runs its day from the dashboard (skipped without /usr/bin/chromium)', () => {
  let t: WebhookTestServer;
  let rx: WebhookReceiver;
  let platform: string;
  let browser: import('playwright-core').Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    rx = await startWebhookReceiver();
    t = await startWebhookServer();
    platform = t.platform('salon-app', rx.url('/hooks'));
    await addBusinessUser(t.server.store, EMAIL, PASSWORD, Date.now());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await rx?.close();
    await t?.close();
  });

  /** A signed-in page with JavaScript off that records requests leaving our origin and console errors (CSP complaints). */
  async function signedIn(size: keyof typeof SIZES = 'desktop') {
    const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    const foreign: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url)) foreign.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) consoleErrors.push(`${m.text()} ${m.location().url}`);
    });
    await page.goto(`${t.url}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/admin');
    return { context, page, foreign, consoleErrors };
  }

  async function axe(context: import('playwright-core').BrowserContext, url: string) {
    const cookies = await context.cookies();
    const c2 = await browser.newContext({ viewport: SIZES.desktop, bypassCSP: true });
    await c2.addCookies(cookies);
    const page = await c2.newPage();
    await page.goto(url);
    await page.addScriptTag({ content: AXE });
    const result: any = await page.evaluate('axe.run(document, { resultTypes: ["violations"] })');
    await c2.close();
    return (result.violations as any[]).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  }

  it('a wrong password is refused with a clear message and no session; the right one signs in with a strict, HttpOnly, SameSite cookie', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${t.url}/admin/login`);
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=password]', 'not the password');
    const wrong = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/admin/login') && r.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(wrong[0].status()).toBe(401);
    expect(await page.textContent('[role=alert]')).toContain('Wrong email or password');
    expect((await context.cookies()).some((c) => c.name === 'usp_admin_session')).toBe(false);
    await context.close();

    const s = await signedIn();
    const cookie = (await s.context.cookies()).find((c) => c.name === 'usp_admin_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    const res = await s.page.request.get(`${t.url}/admin`);
    expect(res.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await s.context.close();
  });

  it('a booking made through the REST door appears in the calendar of its day and staff member, and opens with its history', async () => {
    const booking = await book(t, platform, 'svc_haircut', day(1));
    const s = await signedIn();
    await s.page.goto(`${t.url}/admin/ui/calendar?date=${day(1)}&view=day`);
    const link = s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`);
    expect(await link.count()).toBe(1);
    expect(await link.textContent()).toContain(`${BUYER.first_name} ${BUYER.last_name}`);
    await s.page.goto(`${t.url}/admin/ui/calendar?date=${day(1)}&view=week`);
    expect(await s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`).count()).toBe(1);
    await link.first().isVisible();
    await s.page.goto(`${t.url}/admin/ui/bookings/${booking.id}`);
    expect(await s.page.textContent('main')).toContain('booking.confirmed');
    expect(s.foreign).toEqual([]);
    expect(s.consoleErrors).toEqual([]);
    await s.context.close();
  });

  it('confirming a pending booking from the queue sends booking.confirmed to the platform; a form without the CSRF token changes nothing', async () => {
    const booking = await book(t, platform, 'svc_color_consult', day(2));
    expect(booking.status).toBe('pending');
    const s = await signedIn();
    // Without the token: refused, still pending.
    const forged = await s.page.request.post(`${t.url}/admin/ui/bookings/${booking.id}/confirm`, { form: { nothing: 'here' } });
    expect(forged.status()).toBe(403);
    expect((await t.call('GET', `/admin/bookings/${booking.id}`, undefined, null, { apiKey: ADMIN_KEY })).body.booking.status).toBe('pending');

    await s.page.goto(`${t.url}/admin`);
    const row = s.page.locator('tr', { has: s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`) });
    await row.locator('button', { hasText: 'Confirm' }).click();
    const got = await waitFor(() => rx.requests('/hooks').some((r) => r.json?.event === 'booking.confirmed' && r.json?.booking_id === booking.id), 10_000);
    expect(got).toBe(true);
    const after = await t.call('GET', `/admin/bookings/${booking.id}`, undefined, null, { apiKey: ADMIN_KEY });
    expect(after.body.booking.status).toBe('confirmed');
    // A second confirm is the transition map's answer, shown to the user, nothing changed.
    await s.page.goto(`${t.url}/admin/ui/bookings/${booking.id}`);
    const audit = await t.call('GET', '/admin/audit', undefined, null, { apiKey: ADMIN_KEY });
    expect(audit.body.entries[0]).toMatchObject({ actor: `user:${EMAIL}`, target: booking.id });
    await s.context.close();
  });

  it("time off added in the editor takes the staff member's slot out of availability on the REST and MCP doors", async () => {
    const slot = await firstSlot(t, 'svc_haircut', day(3), platform);
    const staff = slot.resources[0].id as string;
    const query = { service_id: 'svc_haircut', start_date: day(3), end_date: day(3), resource_id: staff };
    const before = await t.call('POST', '/availability/query', query, platform);
    expect(before.body.slots.map((x: any) => x.id)).toContain(slot.id);

    const s = await signedIn();
    await s.page.goto(`${t.url}/admin/ui/time-off`);
    await s.page.selectOption('select[name=resource_id]', staff);
    await s.page.fill('input[name=start]', slot.start.slice(0, 16));
    await s.page.fill('input[name=end]', slot.end.slice(0, 16));
    await s.page.fill('input[name=reason]', 'Dentist');
    await s.page.click('form.stack button[type=submit]');
    expect(await s.page.textContent('[role=status]')).toContain('Time off added');

    const rest = await t.call('POST', '/availability/query', query, platform);
    expect(rest.status).toBe(200);
    expect(rest.body.slots.map((x: any) => x.id)).not.toContain(slot.id);
    const client = new Client({ name: 'dashboard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { 'USP-Agent': `profile="${platform}"` } } }));
    const mcp: any = await client.callTool({ name: 'usp_availability_query', arguments: query });
    await client.close();
    expect(mcp.isError).toBeFalsy();
    expect(mcp.structuredContent.slots.map((x: any) => x.id)).not.toContain(slot.id);

    // The same time off again overlaps: refused with the reason, nothing added.
    await s.page.selectOption('select[name=resource_id]', staff);
    await s.page.fill('input[name=start]', slot.start.slice(0, 16));
    await s.page.fill('input[name=end]', slot.end.slice(0, 16));
    await s.page.click('form.stack button[type=submit]');
    expect(await s.page.textContent('[role=alert]')).toContain('overlaps time off');
    const changes = await t.call('GET', `/admin/schedule-changes?resource_id=${staff}`, undefined, null, { apiKey: ADMIN_KEY });
    expect(changes.body.changes).toHaveLength(1);
    await s.context.close();
  });

  it('a failed delivery retried from the log reaches the platform', async () => {
    const flaky = t.platform('flaky-app', rx.url('/flaky'));
    rx.setDefault('/flaky', 500);
    const booking = await book(t, flaky, 'svc_haircut', day(4));
    const failed = await waitFor(async () => {
      const r = await t.call('GET', '/admin/webhooks/deliveries?status=failed', undefined, null, { apiKey: ADMIN_KEY });
      return r.body.deliveries.some((d: any) => d.resource_id === booking.id);
    }, 15_000);
    expect(failed).toBe(true);
    rx.setDefault('/flaky', 200);
    const s = await signedIn();
    await s.page.goto(`${t.url}/admin/ui/webhooks`);
    const row = s.page.locator('tr', { hasText: 'failed' }).first();
    await row.locator('button', { hasText: 'Retry' }).click();
    expect(await s.page.textContent('[role=status]')).toContain('queued again');
    const ok = await waitFor(() => rx.requests('/flaky').some((r) => r.answered === 200 && r.json?.booking_id === booking.id), 10_000);
    expect(ok).toBe(true);
    await s.context.close();
  }, 30_000);

  for (const size of ['desktop', 'phone'] as const) {
    it(`${size}: every screen passes axe-core with no serious or critical violation, and is photographed`, async () => {
      const s = await signedIn(size);
      const screens: Array<[string, string]> = [
        ['today', '/admin'],
        ['calendar-week', `/admin/ui/calendar?date=${day(1)}&view=week`],
        ['calendar-day', `/admin/ui/calendar?date=${day(1)}&view=day`],
        ['time-off', '/admin/ui/time-off'],
        ['webhooks', '/admin/ui/webhooks'],
        ['waitlists', '/admin/ui/waitlists'],
      ];
      for (const [name, path] of screens) {
        await s.page.goto(t.url + path);
        expect(await axe(s.context, t.url + path), path).toEqual([]);
        await s.page.screenshot({ path: join(SHOTS, `dashboard-${name}-${size}.png`), fullPage: true });
      }
      expect(s.foreign).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
      await s.context.close();
    }, 60_000);
  }
});
