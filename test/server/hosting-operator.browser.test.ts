/**
 * The operator's screen in a real browser (JavaScript off): signed in with the operator key at the
 * operator host, it lists the businesses with their health and suspends and resumes one with its
 * forms (the business's profile says so at its own host), mails its owner a setup link, and adds and
 * verifies a custom domain (DNS injected), exports then deletes a business; a wrong key signs nobody in; a form without
 * the session's CSRF token changes nothing; the screens are axe-clean at phone and desktop widths.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentDirectory } from '../../src/store/index.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';
import { waitFor } from '../support/time.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import {
  NORD,
  NORD_FILE,
  OPERATOR_KEY,
  SALON,
  deployHosting,
  mailIn,
  nordEntry,
  salonEntry,
  undeploy,
  type Deployment,
} from '../support/hosting.js';

noteWithoutChromium('hosting-operator.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

describe.skipIf(!HAVE_CHROMIUM)('the operator screen (skipped without /usr/bin/chromium)', () => {
  let d: Deployment;
  let dir: string;
  let directory: DeploymentDirectory;
  let port: string;
  let browser: import('playwright-core').Browser;
  /** The injected DNS: TXT records by name. */
  const txt = new Map<string, string[][]>();
  const consoleUrl = () => `http://operator.localhost:${port}/console`;

  beforeAll(async () => {
    browser = await launchBrowser();
    d = await deployHosting({
      businesses: [salonEntry(), nordEntry({ addedAt: Date.now(), definition: readFileSync(NORD_FILE, 'utf8') })],
      serverFor: (b, dir) => ({ mail: mailIn(b, dir) }),
      operator: { resolveTxt: async (name) => txt.get(name) ?? [] },
      prefix: 'usp-operator-screen-',
    });
    ({ dir, directory, port } = d);
    // Loaded, so that its health is shown.
    expect((await hostCall(`http://${SALON.host}:${port}/.well-known/usp`)).status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await undeploy(d);
  });

  async function signedIn(size: keyof typeof SIZES = 'desktop', key = OPERATOR_KEY) {
    const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(consoleUrl());
    await page.fill('input[name=key]', key);
    await page.click('button[type=submit]');
    return { context, page };
  }

  it('a wrong key signs nobody in and shows no business', async () => {
    const { context, page } = await signedIn('desktop', 'not-the-operator-key-000');
    expect(await page.textContent('body')).toContain('That is not the operator key.');
    expect(await page.textContent('body')).not.toContain(SALON.id);
    await context.close();
  });

  it('lists the businesses with health, suspends one with a reason and resumes it', async () => {
    const { context, page } = await signedIn();
    expect(new URL(page.url()).pathname).toBe('/console');
    const row = page.locator('tr', { hasText: SALON.id });
    expect(await row.textContent()).toContain('bookings today');
    await page.fill(`#reason-${SALON.id}`, 'Closed for renovation');
    await page.click(`text=Suspend ${SALON.id}`);
    expect(await page.locator('tr', { hasText: SALON.id }).textContent()).toContain('suspended: Closed for renovation');
    expect(directory.get(SALON.id)).toMatchObject({ status: 'suspended', reason: 'Closed for renovation' });
    expect(JSON.stringify((await hostCall(`http://${SALON.host}:${port}/.well-known/usp`)).body)).toContain(
      'Closed for renovation',
    );
    await page.click(`text=Resume ${SALON.id}`);
    expect(directory.get(SALON.id)!.status).toBe('active');
    await context.close();
  });

  it("mails the owner a one-time setup link at the business's origin with the invite form", async () => {
    const { context, page } = await signedIn();
    await page.fill(`#owner-${SALON.id}`, 'owner@maple-pine.example');
    await page.click(`text=Invite the owner of ${SALON.id}`);
    expect(await page.textContent('[role=status]')).toContain(
      `The owner of ${SALON.id} was mailed a one-time setup link.`,
    );
    const folder = join(dir, 'mail', SALON.id);
    const sent = () =>
      existsSync(folder) ? readdirSync(folder).map((f) => readFileSync(join(folder, f), 'utf8')) : [];
    await waitFor(() => sent().some((m) => m.includes('owner_invite')), 10_000, 'the invitation mail');
    const mail = sent().find((m) => m.includes('owner_invite'))!;
    expect(mail).toContain('owner@maple-pine.example');
    expect(mail.replace(/=\r?\n/g, '')).toContain(`http://${SALON.host}:${port}/admin/setup?token=`);
    // A bad address: the list again, saying why, and nothing mailed.
    await page.fill(`#owner-${SALON.id}`, 'x@y.invalid');
    await page.click(`text=Invite the owner of ${SALON.id}`);
    expect(await page.textContent('[role=alert]')).toContain('email address');
    await context.close();
  });

  it('adds a custom domain, shows the TXT record that verifies it, and routes it once the record holds the token', async () => {
    const { context, page } = await signedIn();
    const domain = 'shop.salon.localhost';
    await page.fill(`#domain-${SALON.id}`, domain);
    await page.click(`text=Add the domain to ${SALON.id}`);
    const [claim] = await directory.domainClaimsOf(SALON.id);
    expect(await page.locator('tr', { hasText: SALON.id }).textContent()).toContain(`_usp-verify.${domain}`);
    expect(await page.locator('tr', { hasText: SALON.id }).textContent()).toContain(claim!.token);
    await page.click(`text=Verify ${domain}`);
    expect(await page.textContent('[role=alert]')).toContain('no TXT record');
    expect((await hostCall(`http://${domain}:${port}/.well-known/usp`)).status).toBe(404);
    txt.set(`_usp-verify.${domain}`, [[claim!.token]]);
    await page.click(`text=Verify ${domain}`);
    expect(await page.locator('tr', { hasText: SALON.id }).textContent()).toContain(`${SALON.host}, ${domain}`);
    expect((await hostCall(`http://${domain}:${port}/.well-known/usp`)).status).toBe(200);
    // One left pending, so that the screens checked below show a pending domain's form too.
    await page.fill(`#domain-${SALON.id}`, 'later.salon.localhost');
    await page.click(`text=Add the domain to ${SALON.id}`);
    await context.close();
  });

  it('a form without the session CSRF token changes nothing', async () => {
    const { context } = await signedIn();
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await hostFetch(`${consoleUrl()}/businesses/${SALON.id}/suspend`, {
      method: 'POST',
      headers: { Cookie: cookies, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'csrf=forged&reason=x',
    });
    expect(res.status).toBe(403);
    expect(directory.get(SALON.id)!.status).toBe('active');
    await context.close();
  });

  it.each(['phone', 'desktop'] as const)(
    '%s: sign-in and the list are axe-clean and have no horizontal scroll',
    async (size) => {
      const { context } = await signedIn(size);
      for (const signed of [false, true]) {
        const c2 = await axeContext(browser, { viewport: SIZES[size] });
        if (signed) await c2.addCookies(await context.cookies());
        const p2 = await c2.newPage();
        await p2.goto(consoleUrl());
        expect(await p2.textContent('h1')).toBe(signed ? 'Businesses' : 'Operator sign-in');
        const overflow = await p2.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow).toBeLessThanOrEqual(0);
        expect(await axeViolations(p2)).toEqual([]);
        await c2.close();
      }
      await context.close();
    },
    120_000,
  );

  it('phone: each business is a card with labelled parts, its actions on screen without scrolling the table sideways', async () => {
    const { context, page } = await signedIn('phone');
    const width = SIZES.phone.width;
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    // Nothing in the page scrolls sideways in a box of its own (the table's did): what it holds fits it.
    const sideways = await page.evaluate(
      `[...document.querySelectorAll('main *')].filter((e) => e.scrollWidth > e.clientWidth + 1 && /^(auto|scroll)$/.test(getComputedStyle(e).overflowX)).map((e) => e.tagName + '.' + e.className)`,
    );
    expect(sideways).toEqual([]);
    for (const id of [SALON.id, NORD.id]) {
      for (const action of [`Suspend ${id}`, `Invite the owner of ${id}`, `Delete ${id}`, `Export the data of ${id}`]) {
        const box = await page.locator(`text=${action}`).boundingBox();
        expect(box, action).not.toBeNull();
        expect(box!.x, action).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, action).toBeLessThanOrEqual(width);
      }
      // Each part of the card says what it is, the health first among what an operator looks for.
      const card = page.locator('tr', { hasText: `Delete ${id}` });
      const labels = await card
        .locator('td')
        .evaluateAll((cells) => cells.map((c) => (globalThis as any).getComputedStyle(c, '::before').content));
      expect(labels).toEqual(['"Id"', '"Status"', '"Host names"', '"Health"', '"Action"']);
      const health = await card.locator('td').nth(3).boundingBox();
      expect(health!.x + health!.width).toBeLessThanOrEqual(width);
    }
    await photograph(page, 'operator-console-phone');
    await context.close();
  });

  it('exports a business (a download), refuses its delete until then, then deletes it and frees its name', async () => {
    const { context, page } = await signedIn();
    await page.click(`text=Delete ${NORD.id}`);
    expect(await page.textContent('[role=alert]')).toContain(`take the export of ${NORD.id} first`);
    expect(directory.get(NORD.id)).toBeDefined();
    // The page's export link, fetched with the browser's session (a download event is not waited for: it raced under load).
    const href = await page.getAttribute(`text=Export the data of ${NORD.id}`, 'href');
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const exported = await hostFetch(new URL(href!, page.url()), { headers: { Cookie: cookies } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toContain(`${NORD.id}.db`);
    expect(
      Buffer.from(await exported.arrayBuffer())
        .subarray(0, 15)
        .toString(),
    ).toBe('SQLite format 3');
    await page.click(`text=Delete ${NORD.id}`);
    expect(await page.textContent('[role=status]')).toContain(`${NORD.id} is deleted; its host names are free.`);
    expect(directory.get(NORD.id)).toBeUndefined();
    expect((await hostCall(`http://${NORD.host}:${port}/.well-known/usp`)).status).toBe(404);
    await context.close();
  });
});
