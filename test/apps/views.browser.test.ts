/**
 * The MCP Apps views in a real browser: a test host page embeds each view in a sandboxed iframe and
 * speaks the extension's protocol to it with the package's AppBridge, while its tools/call goes
 * through a real SDK client to a real usp-server. The picker shows the slots the text names, and a
 * choice reaches the model (ui/message) or makes a real hold; the card shows a real booking's terms
 * and state and its pay button opens the booking's continue_url (ui/open-link); the waitlist card
 * accepts a real offer. Each view passes axe-core with no serious or critical violation in both
 * themes at phone and desktop widths; screenshots go to docs/screenshots/ with USP_SCREENSHOTS=1.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, HAVE_CHROMIUM, photograph, launchBrowser, noteWithoutChromium } from '../support/browser.js';
import { ensureBuilt } from '../support/build.js';
import { BUYER, OTHER_PLATFORM, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { SIZES, hostView, type HostedView, type Size } from './host.js';

noteWithoutChromium('mcp-apps views');

let t: TestServer;
let conn: McpConn;
let browser: Browser;
let uris: Record<string, string>;

const buyer = (n: number) => ({ ...BUYER, email: `apps-${n}-${randomUUID().slice(0, 8)}@example.com` });

async function call(name: string, args: Record<string, unknown>, profile = PLATFORM): Promise<any> {
  // No idempotency key: the server makes one for a write (and returns it), and a read takes none.
  const r = await conn.call(name, { ...args, ...meta(profile) });
  const errs = (r.structuredContent?.messages ?? []).filter((m: any) => m.type === 'error');
  expect(errs, `${name}: ${JSON.stringify(errs)}`).toEqual([]);
  return r;
}

async function open(
  tool: string,
  input: Record<string, unknown>,
  result: any,
  opts: { theme?: 'light' | 'dark'; size?: Size } = {},
): Promise<HostedView> {
  return hostView(browser, conn, { uri: uris[tool], input, result, ...opts });
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  ensureBuilt();
  t = await startTestServer();
  conn = await connectMcp('v2', 'memory', t);
  const { tools } = await conn.client.listTools();
  uris = Object.fromEntries(
    tools.filter((x: any) => x._meta?.ui?.resourceUri).map((x: any) => [x.name, x._meta.ui.resourceUri]),
  );
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await conn?.close();
  await t?.close();
});

describe.skipIf(!HAVE_CHROMIUM)('the slot picker (usp_availability_query)', () => {
  const input = () => ({ service_id: 'svc_haircut', start_date: day(5), end_date: day(5), limit: 12 });

  it('shows every slot the result has and the text names, by day, with staff names and both time zones', async () => {
    const q = await call('usp_availability_query', input());
    const slots = q.structuredContent.slots as any[];
    expect(slots.length).toBeGreaterThan(0);
    const v = await open('usp_availability_query', input(), q);
    try {
      await v.view.waitForSelector('button[data-slot-id]');
      const shown = await v.view.$$eval('button[data-slot-id]', (bs) => bs.map((b) => b.getAttribute('data-slot-id')));
      expect(shown.sort()).toEqual(slots.map((s) => s.id).sort());
      const inText = new Set(String(q.content[0].text).match(/\bslot_[A-Za-z0-9_-]{12,}/g) ?? []);
      for (const id of inText) expect(shown, `text names ${id}`).toContain(id);
      const body = await v.view.textContent('main');
      expect(body).toContain('Ava Chen');
      expect(body).toContain('America/Los_Angeles');
      expect(body).toContain('America/New_York');
      // 10:00 in New York is 7:00 in Los Angeles: the person's time first, the business's in brackets.
      const first = slots.slice().sort((a, b) => Date.parse(a.start) - Date.parse(b.start))[0];
      const la = new Intl.DateTimeFormat('en-US', {
        hour: 'numeric',
        minute: '2-digit',
        timeZone: 'America/Los_Angeles',
      }).format(Date.parse(first.start));
      const ny = new Intl.DateTimeFormat('en-US', {
        hour: 'numeric',
        minute: '2-digit',
        timeZone: 'America/New_York',
      }).format(Date.parse(first.start));
      expect(await v.view.textContent(`button[data-slot-id="${first.id}"]`)).toContain(`${la} (${ny})`);
    } finally {
      await v.close();
    }
  });

  it('choosing a slot and "Tell the assistant" sends the slot id to the model as ui/message', async () => {
    const q = await call('usp_availability_query', input());
    const slot = q.structuredContent.slots[1];
    const v = await open('usp_availability_query', input(), q);
    try {
      await v.view.click(`button[data-slot-id="${slot.id}"]`);
      await v.view.click('button[data-action="tell"]');
      await expect.poll(() => v.log.messages.length).toBe(1);
      expect(v.log.messages[0].role).toBe('user');
      expect(v.log.messages[0].content[0].text).toContain(slot.id);
    } finally {
      await v.close();
    }
  });

  it('choosing a slot and "Hold this time" makes a real hold through the host: a second hold of it is refused', async () => {
    const q = await call('usp_availability_query', input());
    const slot = q.structuredContent.slots[2];
    const v = await open('usp_availability_query', input(), q);
    try {
      await v.view.click(`button[data-slot-id="${slot.id}"]`);
      await v.view.click('button[data-action="hold"]');
      await expect.poll(() => v.log.modelContext.length).toBe(1);
      const holdCall = v.log.calls.find((c) => c.name === 'usp_availability_hold')!;
      expect(holdCall.arguments).toEqual({ service_id: 'svc_haircut', slot_id: slot.id });
      const hold = holdCall.result.structuredContent.hold;
      expect(hold.status).toBe('active');
      expect(v.log.modelContext[0].structuredContent.hold.id).toBe(hold.id);
      await expect.poll(() => v.view.textContent('main')).toContain('Nothing is booked yet');
      const again = await conn.call('usp_availability_hold', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        ...meta(OTHER_PLATFORM),
      });
      expect(again.structuredContent.messages.map((m: any) => m.code)).toContain('slot_unavailable');
    } finally {
      await v.close();
    }
  });

  it('"Show more" fetches the next page or days through the host and adds them', async () => {
    const q = await call('usp_availability_query', input());
    const v = await open('usp_availability_query', input(), q);
    try {
      const before = await v.view.$$eval('button[data-slot-id]', (bs) => bs.length);
      await v.view.click('button[data-action="more"]');
      await expect.poll(() => v.view.$$eval('button[data-slot-id]', (bs) => bs.length)).toBeGreaterThan(before);
      expect(v.log.calls.map((c) => c.name)).toEqual(['usp_availability_query']);
    } finally {
      await v.close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the booking card (hold, create, get, reschedule, cancel)', () => {
  it("shows a real booking's service, time, address, staff, price, terms and state, counts the payment deadline down, and Pay opens its continue_url", async () => {
    const q = await call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(2),
      end_date: day(2),
    });
    const slot = q.structuredContent.slots[0];
    const input = { service_id: 'svc_massage_60', slot_id: slot.id, buyer: buyer(1) };
    const created = await call('usp_bookings_create', input);
    const b = created.structuredContent.booking;
    expect(b.status).toBe('requires_action');
    const action = b.actions.find((a: any) => a.type === 'payment' && a.status === 'pending');
    const v = await open('usp_bookings_create', input, created);
    try {
      await v.view.waitForSelector('[data-state]');
      expect(await v.view.getAttribute('[data-state]', 'data-state')).toBe('requires_action');
      const text = (await v.view.textContent('main'))!;
      expect(text).toContain(b.service_name);
      expect(text).toContain('214 Hudson Street');
      for (const r of b.resources.filter((x: any) => x.type === 'staff')) expect(text).toContain(r.name);
      expect(text).toContain('$110.00');
      expect(text).toMatch(/Cancel: /);
      expect(text).toMatch(/No-show: /);
      expect(await v.view.textContent('[data-countdown]')).toMatch(/\d+ (h|min) .* left/);
      await v.view.click('button[data-action="pay"]');
      await expect.poll(() => v.log.links).toEqual([action.continue_url]);
    } finally {
      await v.close();
    }
  });

  it('Pay opens only web addresses: a javascript: or data: continue_url is refused with a visible message and never reaches the host', async () => {
    const q = await call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(4),
      end_date: day(4),
    });
    const input = { service_id: 'svc_massage_60', slot_id: q.structuredContent.slots[0].id, buyer: buyer(8) };
    const created = await call('usp_bookings_create', input);
    for (const hostile of [
      'javascript:alert(document.domain)',
      'data:text/html,<script>alert(1)</script>',
      'http://pay.example/checkout',
      'ftp://pay.example/x',
    ]) {
      const forged = structuredClone(created);
      const action = forged.structuredContent.booking.actions.find(
        (a: any) => a.type === 'payment' && a.status === 'pending',
      );
      action.continue_url = hostile;
      const v = await open('usp_bookings_create', input, forged);
      try {
        await v.view.click('button[data-action="pay"]');
        await v.view.waitForSelector('[role="alert"]');
        expect(await v.view.textContent('[role="alert"]')).toContain('The payment link was not opened');
        expect(v.log.links, hostile).toEqual([]);
      } finally {
        await v.close();
      }
    }
    // Four views opened one after another, 5-8 s each on a loaded 2-core CI machine.
  }, 90_000);

  it('a hold (usp_availability_hold) shows what it keeps: the service and when it starts, and the hold counting down', async () => {
    const q = await call('usp_availability_query', { service_id: 'svc_haircut', start_date: day(5), end_date: day(5) });
    const slot = q.structuredContent.slots[2];
    const input = { service_id: 'svc_haircut', slot_id: slot.id };
    const held = await call('usp_availability_hold', input);
    expect(held.structuredContent.hold.status).toBe('active');
    const v = await open('usp_availability_hold', input, held);
    try {
      await v.view.waitForSelector('[data-state]');
      const text = (await v.view.textContent('main'))!;
      expect(text).toContain('Haircut & Style');
      const clock = new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/New_York',
        hour: 'numeric',
        minute: '2-digit',
      }).format(Date.parse(slot.start));
      expect(text).toMatch(new RegExp(`When.*${clock.replace(/\s/g, '\\s')}`));
      expect(await v.view.textContent('[data-countdown]')).toMatch(/\d+ (h|min) .* left/);
    } finally {
      await v.close();
    }
  });

  it('a canceled booking (usp_bookings_cancel) shows its state and no pay button', async () => {
    const q = await call('usp_availability_query', { service_id: 'svc_haircut', start_date: day(6), end_date: day(6) });
    const slot = q.structuredContent.slots.at(-1);
    const created = await call('usp_bookings_create', { service_id: 'svc_haircut', slot_id: slot.id, buyer: buyer(2) });
    const input = { booking_id: created.structuredContent.booking.id };
    const canceled = await call('usp_bookings_cancel', input);
    const v = await open('usp_bookings_cancel', input, canceled);
    try {
      await v.view.waitForSelector('[data-state]');
      expect(await v.view.getAttribute('[data-state]', 'data-state')).toBe('canceled');
      expect(await v.view.$('button[data-action="pay"]')).toBeNull();
      // Free cancellation, nothing paid: the fee and the refund as the business writes money.
      expect(await v.view.textContent('main')).toMatch(/Fee\$0\.00Refund\$0\.00/);
    } finally {
      await v.close();
    }
  });

  it("a hold (usp_availability_hold) shows that nothing is booked and counts the hold's expiry down from the server's clock", async () => {
    const q = await call('usp_availability_query', { service_id: 'svc_haircut', start_date: day(7), end_date: day(7) });
    const input = { service_id: 'svc_haircut', slot_id: q.structuredContent.slots[0].id };
    const held = await call('usp_availability_hold', input);
    const v = await open('usp_availability_hold', input, held);
    try {
      await v.view.waitForSelector('[data-state]');
      expect(await v.view.getAttribute('[data-state]', 'data-state')).toBe('active');
      expect(await v.view.textContent('main')).toContain('Held, not booked yet');
      // The server's clock is TEST_NOW and the hold lasts minutes: the countdown is minutes, whatever today is.
      expect(await v.view.textContent('[data-countdown]')).toMatch(/^\d+ min \d\d s left$/);
    } finally {
      await v.close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the waitlist card (join, get, decline)', () => {
  it('a real offer: the card shows it with its deadline, and Accept books it through the host', async () => {
    const q = await call('usp_availability_query', {
      service_id: 'svc_yoga_class',
      start_date: day(3),
      end_date: day(3),
    });
    const slot = q.structuredContent.slots[0];
    const total = slot.capacity.remaining;
    await call('usp_bookings_create', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: buyer(3),
      party_size: total - 1,
    });
    const single = await call(
      'usp_bookings_create',
      { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: buyer(4) },
      OTHER_PLATFORM,
    );
    const joined = await call('usp_waitlist_join', { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: buyer(5) });
    const entry = joined.structuredContent.entry;

    const waiting = await open('usp_waitlist_join', { service_id: 'svc_yoga_class', slot_id: slot.id }, joined);
    try {
      await waiting.view.waitForSelector('[data-state]');
      expect(await waiting.view.getAttribute('[data-state]', 'data-state')).toBe('waiting');
      expect(await waiting.view.textContent('main')).toContain('Position 1 in line');
      expect(await waiting.view.$('button[data-action="accept"]')).toBeNull();
    } finally {
      await waiting.close();
    }

    await call('usp_bookings_cancel', { booking_id: single.structuredContent.booking.id }, OTHER_PLATFORM);
    const got = await call('usp_waitlist_get', { entry_id: entry.id });
    expect(got.structuredContent.entry.status).toBe('offered');
    const v = await open('usp_waitlist_get', { entry_id: entry.id }, got);
    try {
      await v.view.waitForSelector('button[data-action="accept"]');
      expect(await v.view.textContent('[data-countdown]')).toMatch(/left$/);
      await v.view.click('button[data-action="accept"]');
      await v.view.waitForSelector('[data-booking-state]');
      const accept = v.log.calls.find((c) => c.name === 'usp_waitlist_accept')!;
      expect(accept.arguments).toEqual({ entry_id: entry.id });
      const booking = accept.result.structuredContent.booking;
      expect(booking.slot.id).toBe(slot.id);
      expect(await v.view.getAttribute('[data-state]', 'data-state')).toBe('accepted');
      expect(await v.view.getAttribute('[data-booking-id]', 'data-booking-id')).toBe(booking.id);
      const after = await call('usp_waitlist_get', { entry_id: entry.id });
      expect(after.structuredContent.entry.status).toBe('accepted');
      expect(v.log.modelContext[0].content[0].text).toContain(booking.id);
    } finally {
      await v.close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the waitlist card: its Pay button opens only web addresses', () => {
  it('an accepted offer whose payment link is javascript: is refused with a visible message; an https one reaches the host', async () => {
    const q = await call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(10),
      end_date: day(10),
    });
    const created = await call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: q.structuredContent.slots[0].id,
      buyer: buyer(9),
    });
    const joined = await call('usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: buyer(10) });
    const withLink = (url: string) => {
      const r = structuredClone(joined);
      const booking = structuredClone(created.structuredContent.booking);
      booking.actions.find((a: any) => a.type === 'payment' && a.status === 'pending').continue_url = url;
      r.structuredContent.booking = booking;
      return r;
    };
    const hostile = await open('usp_waitlist_join', {}, withLink('javascript:alert(1)'));
    try {
      await hostile.view.click('button[data-action="pay"]');
      await hostile.view.waitForSelector('[role="alert"]');
      expect(await hostile.view.textContent('[role="alert"]')).toContain('The payment link was not opened');
      expect(hostile.log.links).toEqual([]);
    } finally {
      await hostile.close();
    }
    const fine = await open('usp_waitlist_join', {}, withLink('https://pay.example/checkout/1'));
    try {
      await fine.view.click('button[data-action="pay"]');
      await expect.poll(() => fine.log.links).toEqual(['https://pay.example/checkout/1']);
      await expect.poll(() => fine.view.textContent('main')).toContain('The payment page was opened.');
    } finally {
      await fine.close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('every view: accessible and right in both themes at both widths', () => {
  async function samples(): Promise<Array<{ name: string; tool: string; input: any; result: any }>> {
    const q = await call('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(8),
      end_date: day(8),
      limit: 10,
    });
    const slot = (
      await call('usp_availability_query', { service_id: 'svc_massage_60', start_date: day(9), end_date: day(9) })
    ).structuredContent.slots[0];
    const created = await call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: slot.id,
      buyer: buyer(6),
    });
    const joined = await call('usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: buyer(7) });
    return [
      {
        name: 'slot-picker',
        tool: 'usp_availability_query',
        input: { service_id: 'svc_haircut', start_date: day(8), end_date: day(8) },
        result: q,
      },
      { name: 'booking-card', tool: 'usp_bookings_create', input: {}, result: created },
      { name: 'waitlist-card', tool: 'usp_waitlist_join', input: {}, result: joined },
    ];
  }

  it('axe-core finds no serious or critical violation in any view, theme or width (photographed with USP_SCREENSHOTS=1)', async () => {
    const all = await samples();
    const problems: string[] = [];
    for (const s of all) {
      for (const theme of ['light', 'dark'] as const) {
        for (const size of Object.keys(SIZES) as Size[]) {
          const v = await open(s.tool, s.input, s.result, { theme, size });
          try {
            await v.view.waitForSelector('main h1');
            // No horizontal scrolling at the phone width.
            const overflow = Number(
              await v.view.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
            );
            expect(overflow, `${s.name} ${theme} ${size} overflows`).toBeLessThanOrEqual(0);
            for (const x of await axeViolations(v.view)) problems.push(`${s.name} ${theme} ${size}: ${x}`);
            await photograph(v.page, `view-${s.name}-${theme}-${size}`);
          } finally {
            await v.close();
          }
        }
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);
});
