/**
 * The waitlist offer mail's link, followed in a real browser: the page shows the offered place and
 * acts under the entry's own credential (the one the link carries), through the same operations as
 * the MCP tools. Accepting books the place (visible on REST and MCP), another entry declines its
 * own; a forged token, or another entry's, opens nothing and changes nothing; an answered or
 * lapsed offer says so. Every page passes axe-core at phone and desktop widths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { ADMIN_KEY, BUYER, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { axeContext, axeViolations, HAVE_CHROMIUM, launchBrowser, noteWithoutChromium } from '../support/browser.js';

noteWithoutChromium('waitlist offer page');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

describe.skipIf(!HAVE_CHROMIUM)('the waitlist offer page acts as the entry and nobody else', () => {
  let browser: Browser;
  let t: TestServer;
  let sink: SmtpSink;
  beforeAll(async () => {
    browser = await launchBrowser();
    sink = await startSmtpSink();
    t = await startTestServer({
      mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
    });
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await sink?.close();
    await browser?.close();
  });

  const send = async () => {
    await t.server.mailWorker!.tick();
    await t.server.mailWorker!.tick();
  };
  const linkIn = (address: string) => {
    const mails = sink.to(address);
    expect(mails).toHaveLength(1);
    const m = /Accept or decline the offer: (\S+)/.exec(String(mails[0].text));
    expect(m, 'the offer link in the plain text').not.toBeNull();
    expect(String(mails[0].html)).toContain(m![1].replace(/&/g, '&amp;'));
    return new URL(m![1]);
  };

  /** A full yoga class, two people waiting for it, and the class freed: both are offered a place. */
  async function offers(n: number, emails: string[]) {
    const slot = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_yoga_class',
        start_date: day(n),
        end_date: day(n),
      })
    ).body.slots[0];
    const big = await t.call('POST', '/bookings', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: { ...BUYER, email: `party${n}@example.com` },
      party_size: 12,
    });
    expect(big.status).toBe(201);
    const entries: string[] = [];
    for (const email of emails) {
      const j = await t.call('POST', '/waitlist', {
        service_id: 'svc_yoga_class',
        slot_id: slot.id,
        buyer: { ...BUYER, email },
      });
      expect(j.status).toBe(201);
      entries.push(j.body.entry.id);
    }
    await t.call('POST', `/bookings/${big.body.booking.id}/cancel`, {}, { profile: null, apiKey: ADMIN_KEY });
    await send();
    return entries;
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

  /** The page's form as a program would post it: the CSRF cookie and field from a GET, then the post. */
  async function post(url: URL, entryId: string, token: string, choice: string) {
    const get = await fetch(url, { headers: { accept: 'text/html' } });
    const cookie = (get.headers.get('set-cookie') ?? '').split(';')[0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await get.text())?.[1] ?? 'none';
    return fetch(`${t.url}/waitlist/${entryId}/offer`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, accept: 'text/html' },
      body: new URLSearchParams({ csrf, token, choice }).toString(),
    });
  }

  it('accept from the mail books the offered place (REST and MCP see it); another entry declines its own; axe-clean at 390 px and desktop', async () => {
    const [first, second] = await offers(8, ['first@example.com', 'second@example.com']);
    const link = linkIn('first@example.com');
    const other = linkIn('second@example.com');
    expect(link.pathname).toBe(`/waitlist/${first}/offer`);

    const context = await browser.newContext({ viewport: SIZES.phone, javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(link.toString());
    const text = (await page.textContent('main')) ?? '';
    expect(text).toContain('Yoga');
    expect(text).toMatch(/Answer by /);
    expect(text).toMatch(/When/);
    expect(text).toMatch(/Price/);
    expect(await axe(link.toString(), 'phone')).toEqual([]);
    expect(await axe(link.toString(), 'desktop')).toEqual([]);
    await page.click('button[value=accept]');
    expect(new URL(page.url()).pathname).toMatch(/^\/booking\/bkg_/);
    const bookingId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.textContent('main')).toContain('Confirmed');
    expect(await axe(page.url(), 'phone')).toEqual([]);

    const rest = await t.call('GET', `/bookings/${bookingId}`, undefined, { profile: null, apiKey: ADMIN_KEY });
    expect([rest.status, rest.body.booking.status, rest.body.booking.service_id]).toEqual([
      200,
      'confirmed',
      'svc_yoga_class',
    ]);
    const entry = await t.call('GET', `/waitlist/${first}`);
    expect(entry.body.entry.status).toBe('accepted');
    const client = new Client({ name: 'offer-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', t.url), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      }),
    );
    const mcp = (await client.callTool({ name: 'usp_bookings_get', arguments: { booking_id: bookingId } })) as {
      isError?: boolean;
      structuredContent: { booking: { id: string; status: string } };
    };
    await client.close();
    expect(mcp.isError).toBeFalsy();
    expect([mcp.structuredContent.booking.id, mcp.structuredContent.booking.status]).toEqual([bookingId, 'confirmed']);

    // The answered offer's link: a clear message, not the form.
    await page.goto(link.toString());
    expect(await page.textContent('h1')).toContain('no longer works');
    await context.close();

    const desk = await browser.newContext({ viewport: SIZES.desktop, javaScriptEnabled: false, locale: 'en-US' });
    const p2 = await desk.newPage();
    await p2.goto(other.toString());
    await p2.click('button[value=decline]');
    expect(await p2.textContent('h1')).toContain('You declined this offer');
    expect(await axe(other.toString(), 'desktop')).toEqual([]);
    await desk.close();
    expect((await t.call('GET', `/waitlist/${second}`)).body.entry.status).toBe('declined');
  }, 120_000);

  it("a forged token or another entry's credential opens nothing and accepts nothing", async () => {
    const [mine, theirs] = await offers(9, ['mine@example.com', 'theirs@example.com']);
    const link = linkIn('mine@example.com');
    const theirToken = linkIn('theirs@example.com').searchParams.get('token')!;
    const forged = `bsc_${'a'.repeat(32)}`;
    for (const token of [forged, theirToken]) {
      const page = await fetch(`${t.url}/waitlist/${mine}/offer?token=${token}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(410);
      expect(await page.text()).not.toContain('name="choice"');
      const res = await post(link, mine, token, 'accept');
      expect(res.status).toBe(410);
    }
    // Nor does the admin-free REST route take another entry's credential.
    const rest = await fetch(`${t.url}/waitlist/${mine}/accept`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${theirToken}`,
        'usp-agent': `profile="${PLATFORM}"`,
      },
      body: '{}',
    });
    expect(rest.status).toBe(401);
    expect((await t.call('GET', `/waitlist/${mine}`)).body.entry.status).toBe('offered');
    expect((await t.call('GET', `/waitlist/${theirs}`)).body.entry.status).toBe('offered');
    // A post without the page's CSRF cookie changes nothing either, even with the right token.
    const blind = await fetch(`${t.url}/waitlist/${mine}/offer`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: 'x', token: link.searchParams.get('token')!, choice: 'accept' }).toString(),
    });
    expect(blind.status).toBe(403);
    expect((await t.call('GET', `/waitlist/${mine}`)).body.entry.status).toBe('offered');
  }, 60_000);

  it('an offer whose time ran out says it expired, and its form no longer books', async () => {
    const [late] = await offers(10, ['late@example.com']);
    const link = linkIn('late@example.com');
    const expires = Date.parse((await t.call('GET', `/waitlist/${late}`)).body.entry.offer_expires_at);
    t.clock.set(expires + 1000);
    const page = await fetch(link, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This offer has expired');
    const again = await fetch(link, { headers: { accept: 'text/html' } });
    expect(await again.text()).toContain('no longer works');
  }, 60_000);
});
