/**
 * What an assistant reads when its host passes only `content[].text`: every fact a tool's
 * description promises (TEXT_PROMISES, beside the descriptions) is in the text, through the
 * official SDK client, reading nothing of structuredContent but what a check compares against.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TEXT_PROMISES, type TextFact } from '../../src/bindings/mcp/descriptions.js';
import { summarize } from '../../src/bindings/mcp/summary.js';
import { BUYER, day } from '../support/server.js';
import { meta, openEnv, type McpEnv, type ToolResult } from './helpers.js';

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env.close());

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
const call = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  env.conn.call(tool, { ...args, ...meta(undefined, extra) });
const book = async (service_id: string, slot_id: string, buyer: Record<string, unknown> = BUYER) =>
  call('usp_bookings_create', { service_id, slot_id, buyer }, { idempotency_key: randomUUID() });
const firstSlot = async (service_id: string, n: number) =>
  (await call('usp_availability_query', { service_id, start_date: day(n), end_date: day(n) })).structuredContent
    .slots[0];

const FACTS: Record<TextFact, (t: string, r: ToolResult) => boolean> = {
  business: (t) => t.includes('Maple & Pine Salon and Studio'),
  duration: (t) => /\b\d+ min\b/.test(t),
  price: (t) => /\$\d+\.\d\d|\bfree\b/.test(t),
  payment_timing: (t) => /paid at the appointment|paid in full when booking|deposit|nothing to pay|must pay/i.test(t),
  location: (t) => /214 Hudson Street|2480 Broadway|the person's address/.test(t),
  cancellation: (t) => /Cancel: (free|not allowed|the free window closed|no longer)/.test(t),
  rescheduling: (t) => /Reschedule: (free|not allowed|the free window closed)/.test(t),
  no_show: (t) => /No-show: (\$|no fee)/.test(t),
  status: (t) => /status \w+|\b\d+ (confirmed|pending|canceled)|: waiting\b/.test(t),
  zone: (t) => /America\/New_York|\bE[SD]T\b/.test(t),
  slot_ids: (t, r) => (r.structuredContent.slots ?? []).every((s: any) => t.includes(s.id)),
  resource_ids: (t, r) => {
    const ids = [
      ...(r.structuredContent.slots ?? []).flatMap((s: any) => s.resources ?? []),
      ...(r.structuredContent.booking?.resources ?? []),
    ].map((x: any) => x.id);
    return ids.length > 0 && ids.every((id: string) => t.includes(id));
  },
  counts: (t) => /\b\d+ (open|bookings?)\b/.test(t),
  offer_channel: (t) => /webhook/.test(t),
  offer_window: (t) => /offer stays open \d+ (minutes|hours)/.test(t),
  // The credential is the platform's: the text names the id to reach the entry by, never the credential (DECISIONS).
  later_access: (t) =>
    /call usp_waitlist_get with entry_id \S+ from this same platform/.test(t) &&
    !t.includes('booking_scoped_credential'),
  held_slot: (t) => /Slot held \(hold \w+\): [^,]+, \w{3}, \w{3} \d+, \d{4}, \d+:\d\d [AP]M/.test(t),
  next_step: (t) => /usp_\w+|cursor/.test(t),
};

function expectPromises(tool: string, r: ToolResult) {
  const t = text(r);
  const missing = TEXT_PROMISES[tool]!.filter((f) => !FACTS[f](t, r));
  expect(missing, `${tool} text lacks ${missing.join(', ')}:\n${t}`).toEqual([]);
}

describe("each tool's text carries what its description tells the model to say", () => {
  it('usp_services_get says the duration, price, when it is paid, the address, and the cancellation, rescheduling and no-show terms in words', async () => {
    const r = await call('usp_services_get', { service_id: 'svc_haircut' });
    expectPromises('usp_services_get', r);
    const t = text(r);
    expect(t).toContain('45 min');
    expect(t).toContain('$65.00');
    expect(t).toContain('paid at the appointment');
    expect(t).toContain('Maple & Pine Downtown Salon, 214 Hudson Street');
    expect(t).toContain('Cancel: free until 24 hours before the start, then $20.00');
    expect(t).toContain('Reschedule: free until 24 hours before the start, then $10.00; at most 2 times');
    expect(t).toContain('No-show: $32.50 (after 15 min late)');
  });

  it('a deposit service says the deposit and the rest; a paid-online service says it is paid by link when booking', async () => {
    expect(text(await call('usp_services_get', { service_id: 'svc_bridal_trial' }))).toContain(
      'a $45.00 deposit paid when booking by a payment link (open up to 24 hours after booking, closing 1 hour before the start if that comes sooner), the rest at the appointment',
    );
    expect(text(await call('usp_services_get', { service_id: 'svc_massage_60' }))).toContain(
      'paid in full when booking, by a payment link',
    );
  });

  it("usp_services_list and usp_services_lookup name the business and each service's terms", async () => {
    const list = await call('usp_services_list', {});
    expectPromises('usp_services_list', list);
    for (const s of list.structuredContent.services) expect(text(list)).toContain(`[${s.id}]`);
    expect(
      text(list)
        .split('\n')
        .filter((l) => l.includes('Cancel:')),
    ).toHaveLength(list.structuredContent.services.length);
    const lookup = await call('usp_services_lookup', { ids: ['svc_haircut', 'svc_yoga_class'] });
    expectPromises('usp_services_lookup', lookup);
  });

  it('a hold says what it keeps: the service and the start in words, with the zone, and until when', async () => {
    const slot = await firstSlot('svc_haircut', 3);
    const r = await call(
      'usp_availability_hold',
      { service_id: 'svc_haircut', slot_id: slot.id },
      { idempotency_key: randomUUID() },
    );
    expectPromises('usp_availability_hold', r);
    expect(text(r)).toContain('Haircut & Style');
  });

  it('a booking says the terms as they apply to it now: the free-cancellation deadline as a date and time, and the fee after it', async () => {
    const slot = await firstSlot('svc_haircut', 3);
    const r = await book('svc_haircut', slot.id);
    expectPromises('usp_bookings_create', r);
    const t = text(r);
    const start = Date.parse(r.structuredContent.booking.slot.start);
    const deadline = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/New_York',
      weekday: 'short',
      day: 'numeric',
      month: 'short',
    })
      .format(new Date(start - 86_400_000))
      .replace(',', '');
    expect(t).toMatch(new RegExp(`Cancel: free until ${deadline} 2026 \\d+:\\d\\d E[SD]T, then \\$20\\.00`));
    expect(t).toContain('$65.00 is paid at the appointment');
    const got = await call('usp_bookings_get', { booking_id: r.structuredContent.booking.id });
    expectPromises('usp_bookings_get', got);
  });

  it('an unpaid booking says the link, the amount, the deadline and why the deadline is close when the appointment is not', async () => {
    const slot = await firstSlot('svc_massage_60', 3);
    const t = text(await book('svc_massage_60', slot.id));
    expect(t).toMatch(/must pay \$110\.00 at \S+\/checkout\//);
    expect(t).toContain(
      "The business's payment window: a link is open up to 24 hours after booking, closing 1 hour before the start if that comes sooner",
    );
  });

  it('uspserver_bookings_list has a real summary: how many, by status, one line per booking and how to page on', async () => {
    const a = await book('svc_haircut', (await firstSlot('svc_haircut', 4)).id);
    const b = await book('svc_massage_60', (await firstSlot('svc_massage_60', 4)).id);
    const bookings = [a.structuredContent.booking, b.structuredContent.booking];
    const t = summarize(
      'uspserver_bookings_list',
      { bookings, pagination: { has_more: true, next_cursor: 'c1' } },
      [],
      {
        zone: 'America/New_York',
        currency: 'USD',
        business: env.server!.server.biz,
        now: env.now(),
      },
    );
    expect(t).not.toContain('done.');
    expect(t).toMatch(/^2 bookings \(1 confirmed, 1 requires_action\)/);
    for (const x of bookings) expect(t).toContain(x.id);
    expect(t).toContain('cursor "c1"');
    const facts = TEXT_PROMISES.uspserver_bookings_list!.filter(
      (f) => !FACTS[f](t, { structuredContent: {}, content: [] }),
    );
    expect(facts).toEqual([]);
  });
});

describe('a policy fee is recorded on the payment and said, for every payment timing, and can be priced before acting', () => {
  // TEST_NOW is 12:00 New York on day 0: a slot tomorrow morning is inside every 24-hour window.
  const lateHaircut = async () => {
    const slots = (
      await call('usp_availability_query', { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) })
    ).structuredContent.slots;
    const r = await book('svc_haircut', slots[0].id);
    return {
      booking: r.structuredContent.booking,
      r,
      other: slots.find((s: any) => s.start !== slots[0].start && s.resources[0].id === slots[0].resources[0].id),
    };
  };

  it('a pay-at-the-salon booking inside the late window says the free windows closed and how to price a change', async () => {
    const { r } = await lateHaircut();
    const t = text(r);
    expect(t).toMatch(/Cancel: the free window closed .*; doing it now costs \$20\.00 \(uspserver_bookings_quote/);
    expect(t).toMatch(/Reschedule: the free window closed .*; doing it now costs \$10\.00/);
  });

  it('uspserver_bookings_quote prices a late cancel and a late reschedule without changing the booking', async () => {
    const { booking } = await lateHaircut();
    const c = await call('uspserver_bookings_quote', { booking_id: booking.id, change: 'cancel' });
    expect(text(c)).toContain('Cancelling now costs a $20.00 late-cancellation fee, $20.00 due from the person');
    expect(c.structuredContent.quote).toMatchObject({ allowed: true, fee: 2000, refund: 0, amount_due: 2000 });
    const q = await call('uspserver_bookings_quote', { booking_id: booking.id, change: 'reschedule' });
    expect(text(q)).toContain(
      'Rescheduling now costs a $10.00 late-reschedule fee, added to what is paid at the appointment',
    );
    const after = await call('usp_bookings_get', { booking_id: booking.id });
    expect(after.structuredContent.booking.revision).toBe(booking.revision);
    expect(after.structuredContent.booking.status).toBe('confirmed');
  });

  it('a late reschedule of a pay-at-the-salon booking records the $10 fee on payment.amount and warns', async () => {
    const { booking, other } = await lateHaircut();
    const r = await call(
      'usp_bookings_reschedule',
      { booking_id: booking.id, slot_id: other.id },
      { idempotency_key: randomUUID() },
    );
    expectPromises('usp_bookings_reschedule', r);
    expect(r.structuredContent.messages).toEqual([
      expect.objectContaining({ type: 'warning', code: 'late_reschedule_fee' }),
    ]);
    expect(r.structuredContent.booking.payment).toMatchObject({ timing: 'at_service', amount: 7500 });
    expect(text(r)).toContain('A late-reschedule fee of $10.00 applies (moved less than 24 hours before the start)');
    expect(text(r)).toContain('$75.00 is paid at the appointment');
    // The no-show fee is half the price of the haircut, not of the price with the reschedule fee.
    expect(text(r)).toContain('No-show: $32.50');
  });

  it('a no-show records the fee as due and warns, also when payment was at the appointment', async () => {
    const { booking } = await lateHaircut();
    const t = env.server!;
    const res = await t.call('POST', `/admin/bookings/${booking.id}/no-show`, undefined, {
      apiKey: 'test-admin-key-0123456789',
      profile: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual([expect.objectContaining({ type: 'warning', code: 'no_show_fee' })]);
    expect(res.body.booking.payment).toMatchObject({ status: 'pending', amount_due: 3250 });
  });
});

describe('text that cannot mislead: counts say what they count, full slots say so, resources carry their ids', () => {
  it('a day with a full class counts open and full slots apart and marks the full one as waitlist only', async () => {
    const slots = (
      await call('usp_availability_query', { service_id: 'svc_yoga_class', start_date: day(2), end_date: day(2) })
    ).structuredContent.slots;
    await call(
      'usp_bookings_create',
      { service_id: 'svc_yoga_class', slot_id: slots[0].id, buyer: BUYER, party_size: 12 },
      { idempotency_key: randomUUID() },
    );
    const r = await call('usp_availability_query', {
      service_id: 'svc_yoga_class',
      start_date: day(2),
      end_date: day(2),
    });
    expectPromises('usp_availability_query', r);
    const all = r.structuredContent.slots;
    const full = all.filter((s: any) => s.state === 'waitlist');
    expect(full.length).toBeGreaterThan(0);
    const t = text(r);
    expect(t).toContain(
      `${all.length} slots (${all.length - full.length} open, ${full.length} full: join its waitlist with usp_waitlist_join)`,
    );
    expect(t).not.toContain('every open slot');
    for (const s of full) expect(t).toMatch(new RegExp(`\\(FULL: waitlist only\\) ${s.id}`));
    expect(t).toContain('Fay Morgan res_instructor_fay');
  });

  it('usp_waitlist_join says how an offer reaches the person, how long it stays open, and how to reach the entry later', async () => {
    const r = await call(
      'usp_waitlist_join',
      { service_id: 'svc_yoga_class', buyer: BUYER },
      { idempotency_key: randomUUID() },
    );
    expectPromises('usp_waitlist_join', r);
    const t = text(r);
    expect(t).toContain('waitlist.offered webhook event');
    expect(t).toContain('An offer stays open 15 minutes');
    if (r.structuredContent.booking_scoped_credential)
      expect(t).toMatch(/To read or change it later, call usp_waitlist_get/);
  });
});

describe('schemas a model can obey, in a tool list under 30 KB', () => {
  it('no tool requires _meta or anything in it, and tools/list is under 30,000 characters', async () => {
    const { tools } = await env.conn.client.listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('_meta');
      expect(JSON.stringify(tool.inputSchema.properties?._meta ?? {}), tool.name).not.toContain('"required"');
    }
    expect(JSON.stringify({ tools }).length).toBeLessThan(30_000);
  });

  it('a write sent without an idempotency key gets one, returned in _meta.usp, and a retry with it books nothing twice', async () => {
    const slot = await firstSlot('svc_haircut', 5);
    const first = await call('usp_bookings_create', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
    const key = first._meta?.usp?.idempotency_key;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const retry = await call(
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
      { idempotency_key: key },
    );
    expect(retry.structuredContent.booking.id).toBe(first.structuredContent.booking.id);
  });
});

describe('bad input is never silent: an unknown member is ignored with a warning naming it and what it probably meant', () => {
  it('buyer.phone books, and the text warns that it was ignored and names buyer.phone_number', async () => {
    const slot = await firstSlot('svc_haircut', 6);
    const r = await book('svc_haircut', slot.id, { ...BUYER, phone: '+12125550100' });
    expect(r.structuredContent.booking.buyer.phone_number).toBeUndefined();
    expect(r.structuredContent.messages).toEqual([
      expect.objectContaining({ type: 'warning', code: 'unknown_member', path: '$.buyer.phone' }),
    ]);
    expect(text(r)).toContain(
      'buyer.phone is not a member of this call and was ignored: did you mean buyer.phone_number?',
    );
  });

  it('a refused call names the unknown member that probably meant the missing one', async () => {
    const err = await env.conn.callError('usp_services_lookup', { service_ids: ['svc_haircut'] });
    expect(err.message).toContain('ids: is required');
    expect(err.message).toContain('service_ids is not a member of this call and was ignored: did you mean ids?');
  });
});
