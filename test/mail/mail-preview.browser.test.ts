/**
 * The dashboard's mail screen: every message kind rendered from a sample booking of the business,
 * the business's own template in place of the built-in text where it names one, the HTML in a
 * sandboxed frame that runs nothing and is framed only by the dashboard, axe-clean in Chromium.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { addBusinessUser } from '../../src/operations/index.js';
import { demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { axeViolations, HAVE_CHROMIUM, launchBrowser, noteWithoutChromium } from '../support/browser.js';

noteWithoutChromium('mail preview');
const EMAIL = 'owner@salon.example';
const PASSWORD = 'a long enough password 1';
const KINDS = [
  'booking_confirmed',
  'booking_requested',
  'booking_declined',
  'payment_needed',
  'booking_rescheduled',
  'booking_canceled',
  'refund_issued',
  'reminder',
  'waitlist_offer',
];

describe.skipIf(!HAVE_CHROMIUM)('the dashboard previews each mail with the business overrides', () => {
  let browser: Browser;
  let t: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    const dir = mkdtempSync(join(tmpdir(), 'usp-preview-'));
    writeFileSync(join(dir, 'reminder.txt'), 'See you soon for {{service}} on {{when}}. Parking behind the shop.');
    t = await startTestServer({
      business: demoBusiness({ mail_templates: { reminder: 'reminder.txt' } }),
      mail: { dir: join(dir, 'out'), templateBase: dir, startWorker: false },
    });
    await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await browser?.close();
  });

  it('lists every kind with its subject and plain text; the reminder shows the business template; the frame is sandboxed and the screen axe-clean', async () => {
    const d = await signInDashboard(t.url, EMAIL, PASSWORD);
    const screen = await d.get('/admin/ui/mail');
    expect(screen.status).toBe(200);
    expect(screen.headers.get('content-security-policy')).toContain("frame-src 'self'");
    const body = await screen.text();
    const business = demoBusiness().business.name;
    for (const k of KINDS) expect(body).toContain(`src="/admin/ui/mail/${k}.html"`);
    expect(body.match(/<iframe sandbox=""/g)).toHaveLength(KINDS.length);
    expect(body).toContain('Parking behind the shop.');
    expect(body).toContain('Your own text (settings.mail_templates)');
    expect(body).toContain(`Subject: Reminder: `);
    expect(body).toContain('Accept or decline the offer');

    const framed = await d.get('/admin/ui/mail/booking_confirmed.html');
    expect(framed.status).toBe(200);
    expect(framed.headers.get('content-security-policy')).toMatch(/sandbox; frame-ancestors 'self'/);
    const mail = await framed.text();
    expect(mail).toContain(business.replace(/&/g, '&amp;'));
    expect(mail).toContain('/booking/bkg_sample');
    expect((await d.get('/admin/ui/mail/nothing.html')).status).toBe(404);
    // Not signed in: no preview.
    expect((await fetch(`${t.url}/admin/ui/mail/booking_confirmed.html`, { redirect: 'manual' })).status).toBe(303);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${t.url}/admin`);
    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.goto(`${t.url}/admin/ui/mail`);
    const frame = page.frameLocator('iframe[src="/admin/ui/mail/reminder.html"]');
    expect(await frame.locator('main').textContent()).toContain('Parking behind the shop.');
    const axeContext = await browser.newContext({
      viewport: { width: 390, height: 844 },
      bypassCSP: true,
      storageState: await context.storageState(),
    });
    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      const p = await axeContext.newPage();
      await p.setViewportSize(size);
      await p.goto(`${t.url}/admin/ui/mail`);
      expect(await axeViolations(p)).toEqual([]);
      await p.close();
    }
    await axeContext.close();
    await context.close();
  }, 120_000);
});
