/**
 * The business's dashboard in a real browser (Debian's chromium driven by playwright-core): sign in,
 * see a booking made through the REST door in the calendar, confirm a pending booking and watch the
 * platform's webhook receiver get booking.confirmed, add time off and see the slot leave
 * availability on both doors, retry a failed delivery from the log; create a platform key (shown
 * once), use it and revoke it; close a day for a staff member; rotate the webhook signing key and
 * read the audit log; reschedule a booking to a free slot. Every screen passes axe-core
 * with no serious or critical violation at phone and desktop widths, runs no script and loads
 * nothing from another origin. Screenshots go to docs/screenshots/ only when USP_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addBusinessUser } from '../../src/operations/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  ADMIN_KEY,
  BUYER,
  book,
  day,
  firstSlot,
  publishedKeys,
  startWebhookServer,
  waitFor,
  type WebhookTestServer,
} from '../webhooks/helpers.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';

noteWithoutChromium('dashboard.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_CHROMIUM)(
  'the business runs its day from the dashboard (skipped without /usr/bin/chromium)',
  () => {
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
        if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico'))
          consoleErrors.push(`${m.text()} ${m.location().url}`);
      });
      await page.goto(`${t.url}/admin`);
      expect(new URL(page.url()).pathname).toBe('/admin/login');
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/admin');
      return { context, page, foreign, consoleErrors };
    }

    /** A page that may run axe-core at `size`, signed in with `context`'s cookies: one per sweep of screens. */
    async function axePage(context: import('playwright-core').BrowserContext, size: keyof typeof SIZES) {
      const c2 = await axeContext(browser, { viewport: SIZES[size] });
      await c2.addCookies(await context.cookies());
      return c2.newPage();
    }

    /** axe-core's serious and critical violations on `url` (after `act`, e.g. posting a form, when given). */
    async function axe(
      page: import('playwright-core').Page,
      url: string,
      act?: (page: import('playwright-core').Page) => Promise<unknown>,
    ) {
      await page.goto(url);
      if (act) await act(page);
      return axeViolations(page);
    }

    it('a wrong password is refused with a clear message and no session; the right one signs in with a strict, HttpOnly, SameSite cookie', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${t.url}/admin/login`);
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', 'not the password');
      const wrong = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/admin/login') && r.request().method() === 'POST'),
        page.click('button[type=submit]'),
      ]);
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
      const forged = await s.page.request.post(`${t.url}/admin/ui/bookings/${booking.id}/confirm`, {
        form: { nothing: 'here' },
      });
      expect(forged.status()).toBe(403);
      expect(
        (await t.call('GET', `/admin/bookings/${booking.id}`, undefined, null, { apiKey: ADMIN_KEY })).body.booking
          .status,
      ).toBe('pending');

      await s.page.goto(`${t.url}/admin`);
      const row = s.page.locator('tr', { has: s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`) });
      await row.locator('button', { hasText: 'Confirm' }).click();
      await waitFor(
        () =>
          rx.requests('/hooks').some((r) => r.json?.event === 'booking.confirmed' && r.json?.booking_id === booking.id),
        10_000,
        'booking.confirmed delivered',
      );
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
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', t.url), {
          requestInit: { headers: { 'USP-Agent': `profile="${platform}"` } },
        }),
      );
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
      const changes = await t.call('GET', `/admin/schedule-changes?resource_id=${staff}`, undefined, null, {
        apiKey: ADMIN_KEY,
      });
      expect(changes.body.changes).toHaveLength(1);
      await s.context.close();
    });

    it('a failed delivery retried from the log reaches the platform', async () => {
      const flaky = t.platform('flaky-app', rx.url('/flaky'));
      rx.setDefault('/flaky', 500);
      const booking = await book(t, flaky, 'svc_haircut', day(4));
      await waitFor(
        async () => {
          const r = await t.call('GET', '/admin/webhooks/deliveries?status=failed', undefined, null, {
            apiKey: ADMIN_KEY,
          });
          return r.body.deliveries.some((d: any) => d.resource_id === booking.id);
        },
        15_000,
        'a failed delivery listed',
      );
      rx.setDefault('/flaky', 200);
      const s = await signedIn();
      await s.page.goto(`${t.url}/admin/ui/webhooks`);
      const row = s.page.locator('tr', { hasText: 'failed' }).first();
      await row.locator('button', { hasText: 'Retry' }).click();
      expect(await s.page.textContent('[role=status]')).toContain('queued again');
      await waitFor(
        () => rx.requests('/flaky').some((r) => r.answered === 200 && r.json?.booking_id === booking.id),
        10_000,
        'the retried delivery answered 200',
      );
      await s.context.close();
    }, 30_000);

    it('a platform key created on the API keys screen is shown once, authenticates REST calls, is never listed, and stops working once revoked after a confirmation', async () => {
      const s = await signedIn();
      await s.page.goto(`${t.url}/admin/ui/api-keys`);
      await s.page.fill('#new-key input[name=label]', 'Booking Buddy');
      const [made] = await Promise.all([
        s.page.waitForResponse((r) => r.url().endsWith('/admin/ui/api-keys') && r.request().method() === 'POST'),
        s.page.click('#new-key button[type=submit]'),
      ]);
      expect(made.headers()['cache-control']).toBe('no-store');
      const secret = ((await s.page.textContent('#secret')) ?? '').trim();
      expect(secret).toMatch(/^uspk_/);
      expect(s.page.url()).not.toContain(secret);
      const query = { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) };
      expect((await t.call('POST', '/availability/query', query, null, { apiKey: secret })).status).toBe(200);

      await s.page.goto(`${t.url}/admin/ui/api-keys`);
      expect(await s.page.textContent('main')).toContain('Booking Buddy');
      expect(await s.page.content()).not.toContain(secret);
      const row = s.page.locator('tr', { hasText: 'Booking Buddy' });
      await row.locator('a', { hasText: 'Revoke' }).click();
      expect(new URL(s.page.url()).pathname).toMatch(/^\/admin\/ui\/api-keys\/[^/]+\/revoke$/);
      expect(await s.page.textContent('h1')).toContain('Booking Buddy');
      await s.page.click('button.danger');
      expect(await s.page.textContent('[role=status]')).toContain('Key revoked');
      expect(await s.page.locator('tr', { hasText: 'Booking Buddy' }).textContent()).toContain('revoked');
      const refused = await t.call('POST', '/availability/query', query, null, { apiKey: secret });
      expect(refused.status).toBe(401);
      expect(s.foreign).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
      await s.context.close();
    });

    it("closing a day for a staff member on the hours screen takes all that day's slots of theirs out of availability; removing it brings them back", async () => {
      const slot = await firstSlot(t, 'svc_haircut', day(7), platform);
      const staff = slot.resources[0].id as string;
      const query = { service_id: 'svc_haircut', start_date: day(7), end_date: day(7), resource_id: staff };
      expect((await t.call('POST', '/availability/query', query, platform)).body.slots.length).toBeGreaterThan(0);

      const s = await signedIn();
      await s.page.goto(`${t.url}/admin/ui/time-off`);
      await s.page.selectOption('#exception select[name=resource_id]', staff);
      await s.page.fill('#exception input[name=date]', day(7));
      await s.page.fill('#exception input[name=reason]', 'Public holiday');
      await s.page.click('#exception button[type=submit]');
      expect(await s.page.textContent('[role=status]')).toContain('Day closed');
      expect((await t.call('POST', '/availability/query', query, platform)).body.slots).toEqual([]);
      const row = s.page.locator('tr', { hasText: 'Public holiday' });
      expect(await row.textContent()).toContain(`${day(7)}: closed all day`);

      // A second exception for the same date is the operation's refusal, in words.
      await s.page.selectOption('#exception select[name=resource_id]', staff);
      await s.page.fill('#exception input[name=date]', day(7));
      await s.page.click('#exception button[type=submit]');
      expect(await s.page.textContent('[role=alert]')).toContain('already has an exception');

      await s.page.locator('tr', { hasText: 'Public holiday' }).locator('button', { hasText: 'Remove' }).click();
      expect(await s.page.textContent('[role=status]')).toContain('Removed');
      expect((await t.call('POST', '/availability/query', query, platform)).body.slots.map((x: any) => x.id)).toContain(
        slot.id,
      );
      // Short hours on another date stay, for the screen's photograph.
      await s.page.selectOption('#exception select[name=resource_id]', staff);
      await s.page.fill('#exception input[name=date]', day(8));
      await s.page.fill('#exception input[name=opens]', '10:00');
      await s.page.fill('#exception input[name=closes]', '14:00');
      await s.page.fill('#exception input[name=reason]', 'Training afternoon');
      await s.page.click('#exception button[type=submit]');
      expect(await s.page.textContent('[role=status]')).toContain('Hours set');
      expect(await s.page.locator('tr', { hasText: 'Training afternoon' }).textContent()).toContain('open 10:00–14:00');
      await s.context.close();
    });

    it('rotating the signing key on the Webhooks screen shows the new key published (signing after the overlap) and when the old one stops signing; the audit log lists it as the user, newest first', async () => {
      const s = await signedIn();
      await s.page.goto(`${t.url}/admin/ui/webhooks`);
      const inUse = async () =>
        (await s.page.locator('tr', { hasText: 'signs deliveries' }).locator('code').textContent())?.trim();
      const oldKid = await inUse();
      expect(oldKid).toBeTruthy();
      await s.page.click('button:has-text("Rotate the signing key")');
      const newKid = await inUse();
      expect(newKid).not.toBe(oldKid);
      expect(await s.page.textContent('[role=status]')).toContain(newKid!);
      expect(await s.page.locator('tr', { hasText: newKid! }).textContent()).toContain(
        'published; signs deliveries from',
      );
      expect(await s.page.locator('tr', { hasText: oldKid! }).textContent()).toContain('signing ends');
      const published = (await publishedKeys(t.url)).map((k: any) => k.kid);
      expect(published).toEqual(expect.arrayContaining([oldKid, newKid]));

      await s.page.goto(`${t.url}/admin/ui/audit`);
      const first = s.page.locator('tbody tr').first();
      expect(await first.textContent()).toContain(EMAIL);
      expect(await first.textContent()).toContain('rotate signing key');
      const main = (await s.page.textContent('main')) ?? '';
      expect(main).toContain('revoke api key');
      expect(main).toContain('add schedule exception');
      await s.context.close();
    });

    it('a booking rescheduled from its page to a free slot of another day shows in the calendar at the new time, and the platform hears booking.rescheduled', async () => {
      const booking = await book(t, platform, 'svc_haircut', day(8));
      const s = await signedIn();
      await s.page.goto(`${t.url}/admin/ui/bookings/${booking.id}`);
      await s.page.fill('#reschedule input[name=date]', day(9));
      await s.page.click('#reschedule button:has-text("Show free times")');
      const choice = s.page.locator('#reschedule input[name=slot_id]').first();
      const slotId = await choice.getAttribute('value');
      const q = await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(9), end_date: day(9) },
        platform,
      );
      const slot = q.body.slots.find((x: any) => x.id === slotId);
      expect(slot).toBeTruthy();
      await choice.check();
      await s.page.click('#reschedule button:has-text("Move the booking")');
      expect(await s.page.textContent('[role=status]')).toContain('Booking moved');

      await s.page.goto(`${t.url}/admin/ui/calendar?date=${day(9)}&view=day`);
      const link = s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`);
      expect(await link.count()).toBe(1);
      expect(await link.textContent()).toContain(slot.start.slice(11, 16));
      await s.page.goto(`${t.url}/admin/ui/calendar?date=${day(8)}&view=day`);
      expect(await s.page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`).count()).toBe(0);
      await waitFor(
        () =>
          rx
            .requests('/hooks')
            .some((r) => r.json?.event === 'booking.rescheduled' && r.json?.booking_id === booking.id),
        10_000,
        'booking.rescheduled delivered',
      );
      await s.context.close();
    }, 30_000);

    for (const size of ['desktop', 'phone'] as const) {
      it(`${size}: every screen passes axe-core with no serious or critical violation (photographed with USP_SCREENSHOTS=1)`, async () => {
        const booking = await book(t, platform, 'svc_haircut', day(10));
        const s = await signedIn(size);
        const screens: Array<[string, string]> = [
          ['today', '/admin'],
          ['calendar-week', `/admin/ui/calendar?date=${day(1)}&view=week`],
          ['calendar-day', `/admin/ui/calendar?date=${day(1)}&view=day`],
          ['time-off', '/admin/ui/time-off'],
          ['webhooks', '/admin/ui/webhooks'],
          ['waitlists', '/admin/ui/waitlists'],
          ['api-keys', '/admin/ui/api-keys'],
          ['audit', '/admin/ui/audit'],
          ['booking', `/admin/ui/bookings/${booking.id}?date=${day(9)}`],
        ];
        const key = (
          await t.call('POST', '/admin/api-keys', { label: `Screenshot app (${size})` }, null, { apiKey: ADMIN_KEY })
        ).body.api_key;
        screens.push(['api-key-revoke', `/admin/ui/api-keys/${key.id}/revoke`]);
        // Every screen the navigation offers is checked too, so a new screen cannot be left out.
        const navLinks = (
          await s.page.$$eval('nav a[href]', (links) => links.map((a) => a.getAttribute('href') ?? ''))
        ).filter(Boolean);
        expect(navLinks.length).toBeGreaterThan(10);
        for (const href of navLinks)
          if (!screens.some(([, path]) => path.split('?')[0] === href))
            screens.push([href.split('/').pop() || 'today', href]);
        screens.push(['client', `/admin/ui/clients?email=${encodeURIComponent(BUYER.email)}`]);
        const axed = await axePage(s.context, size);
        for (const [name, path] of screens) {
          await s.page.goto(t.url + path);
          const overflow = await s.page.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
          expect(await axe(axed, t.url + path), path).toEqual([]);
          await photograph(s.page, `dashboard-${name}-${size}`);
        }
        // On a phone the screens' navigation is one row that scrolls sideways, not a wall of links above every screen.
        await s.page.goto(`${t.url}/admin`);
        const nav = (await s.page.locator('nav[aria-label=Dashboard]').boundingBox())!;
        if (size === 'phone') expect(nav.height, 'navigation height at phone width').toBeLessThan(60);
        // The one page that is a POST's answer: a new key, shown once.
        const newKey = async (page: import('playwright-core').Page) => {
          await page.fill('#new-key input[name=label]', 'Booking Buddy');
          await page.click('#new-key button[type=submit]');
        };
        expect(await axe(axed, `${t.url}/admin/ui/api-keys`, newKey), 'new key').toEqual([]);
        await axed.context().close();
        await s.page.goto(`${t.url}/admin/ui/api-keys`);
        await newKey(s.page);
        await photograph(s.page, `dashboard-api-key-new-${size}`);
        expect(s.foreign).toEqual([]);
        expect(s.consoleErrors).toEqual([]);
        await s.context.close();
      }, 600_000);
    }
  },
);
