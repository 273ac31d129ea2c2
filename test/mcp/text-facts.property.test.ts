/**
 * A property of every booking, hold and waitlist entry text (issue 36, item 1): rendered from a
 * generated structured result, the text states no amount, deadline or state that the result does
 * not carry. Bookings are generated across every status, payment timing and status, payment action,
 * deposit, fee and refund; the expectations are read off the structured object by the rules of the
 * protocol's payment block (spec 3.11, 5.5), written here apart from the code under test. Pure
 * rendering (`summarize`), no server; fast-check prints the seed and the shrunk case on failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/bindings/mcp/summary.js';
import { when } from '../../src/bindings/mcp/format.js';
import { bookingNoShowFee, compileBusiness, serviceTerms } from '../../src/operations/index.js';
import { demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const ZONE = 'America/New_York';
const biz = compileBusiness(demoBusiness(), { sandbox: true });
const CTX = { zone: ZONE, currency: 'USD', business: biz, now: TEST_NOW };
const RUNS = 10_000;
/** 10,000 cases take 12 s on a quiet 2-core machine and 28 s at load 20: CPU, not a hang. */
const CPU_BOUND_MS = 120_000;

const BOOKING_STATUSES = [
  'pending',
  'requires_action',
  'confirmed',
  'in_progress',
  'completed',
  'canceled',
  'no_show',
] as const;
const PAYMENT_STATUSES = ['not_required', 'pending', 'deposit_paid', 'paid', 'refunded', 'partially_refunded'] as const;
const TIMINGS = ['at_booking', 'at_service', 'deposit_required'] as const;
const SERVICES = [...biz.services.keys()];
const LIVE = new Set(['pending', 'requires_action', 'confirmed', 'in_progress']);

const cents = fc.integer({ min: 0, max: 60_000 });
const instant = fc
  .integer({ min: TEST_NOW - 86_400_000, max: TEST_NOW + 30 * 86_400_000 })
  .map((ms) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString());

const action = fc.record({
  type: fc.constant('payment'),
  status: fc.constantFrom('pending', 'completed', 'expired'),
  continue_url: fc.constant('https://salon.example/checkout/bk_1'),
  expires_at: instant,
  payment_context: fc.record({ amount_due: cents, currency: fc.constant('USD') }),
});

const booking = fc
  .record({
    status: fc.constantFrom(...BOOKING_STATUSES),
    service_id: fc.constantFrom(...SERVICES),
    start: instant,
    party_size: fc.integer({ min: 1, max: 4 }),
    expires_at: fc.option(instant, { nil: undefined }),
    payment: fc.option(
      fc.record(
        {
          status: fc.constantFrom(...PAYMENT_STATUSES),
          timing: fc.constantFrom(...TIMINGS),
          amount: cents,
          currency: fc.constant('USD'),
          amount_due: cents,
          deposit_amount: cents,
        },
        { requiredKeys: ['status', 'timing', 'currency'] },
      ),
      { nil: undefined },
    ),
    actions: fc.array(action, { maxLength: 3 }),
    cancellation: fc.record({
      canceled_by: fc.constantFrom('buyer', 'business', 'system'),
      fee: cents,
      refund_amount: cents,
    }),
  })
  .map((g) => {
    const s = biz.services.get(g.service_id)!;
    const b: Record<string, any> = {
      id: 'bk_1',
      service_id: g.service_id,
      service_name: s.name,
      slot: {
        id: 'slot_1',
        start: g.start,
        end: new Date(Date.parse(g.start) + 3_600_000).toISOString(),
        duration: 'PT1H',
      },
      party_size: g.party_size,
      status: g.status,
      confirmation_mode: 'auto',
      revision: 'r1',
    };
    if (g.expires_at) b.expires_at = g.expires_at;
    if (g.payment) b.payment = g.payment;
    if (g.actions.length) b.actions = g.actions;
    if (g.status === 'canceled') b.cancellation = g.cancellation;
    return b;
  });

const hold = fc.record({
  id: fc.constant('hold_1'),
  status: fc.constantFrom('active', 'released', 'expired', 'converted'),
  service_id: fc.constantFrom(...SERVICES),
  slot_id: fc.constant('not-a-slot-id'),
  spots: fc.integer({ min: 1, max: 4 }),
  expires_at: instant,
});

const entry = fc
  .record({
    status: fc.constantFrom('waiting', 'offered', 'accepted', 'expired', 'declined', 'removed'),
    service_id: fc.constantFrom(...SERVICES),
    position: fc.integer({ min: 1, max: 9 }),
    start: instant,
    offer_expires_at: instant,
    party_size: fc.integer({ min: 1, max: 4 }),
  })
  .map((g) => {
    const e: Record<string, any> = {
      id: 'wl_1',
      service_id: g.service_id,
      status: g.status,
      position: g.position,
      created_at: new Date(TEST_NOW).toISOString(),
    };
    if (g.status === 'offered') {
      e.offered_slot = {
        slot_id: 'slot_1',
        start: g.start,
        end: new Date(Date.parse(g.start) + 3_600_000).toISOString(),
      };
      e.offer_expires_at = g.offer_expires_at;
    }
    return e;
  });

/** "$1,234.50" → 123450. */
const minor = (s: string) => Math.round(Number(s.replace(/[$,]/g, '')) * 100);
const amountsIn = (t: string) => [...t.matchAll(/\$[\d,]+\.\d\d/g)].map((m) => minor(m[0]));
const LONG_WHEN = /[A-Z][a-z]{2}, [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M [A-Z]{3,4} \(America\/New_York\)/g;

/** What the structured booking says of money, by the payment block's rules. */
function expected(b: Record<string, any>) {
  const p = b.payment;
  const pays = (b.actions ?? []).filter((a: any) => a.type === 'payment');
  const paid = pays
    .filter((a: any) => a.status === 'completed')
    .reduce((n: number, a: any) => n + a.payment_context.amount_due, 0);
  const pending = pays.find((a: any) => a.status === 'pending');
  const owed = !pending && p && p.amount_due > 0 ? p.amount_due : 0;
  const atAppointment =
    LIVE.has(b.status) && typeof p?.amount === 'number'
      ? Math.max(0, p.amount - paid - (pending?.payment_context.amount_due ?? 0) - owed)
      : 0;
  return { paid, pending, owed, atAppointment, fee: b.cancellation?.fee, refund: b.cancellation?.refund_amount };
}

/** The amounts a booking's result carries (its own members and what follows from them) or its service's terms state. */
function carriedAmounts(b: Record<string, any>): Set<number> {
  const x = expected(b);
  const p = b.payment ?? {};
  const set = new Set<number>(
    [p.amount, p.amount_due, p.deposit_amount, x.paid, x.owed, x.atAppointment, x.fee, x.refund].filter(
      (n) => typeof n === 'number',
    ),
  );
  for (const a of b.actions ?? []) set.add(a.payment_context.amount_due);
  const t = serviceTerms(biz, b.service_id);
  if (t) {
    for (const n of [t.cancel.fee, t.reschedule.fee, t.noShow?.fee, t.pricing.amount, t.payment.deposit])
      if (typeof n === 'number') set.add(n);
    set.add(bookingNoShowFee(biz, b.service_id, b.party_size, 3_600_000));
  }
  return set;
}

/** Who the text says tells the person, and where its links open, vary with the caller and the server: none of it may add a fact. */
const context = fc.record({ platformTells: fc.boolean(), local: fc.boolean(), mailSent: fc.boolean() });

function checkBooking(
  b: Record<string, any>,
  c: { platformTells: boolean; local: boolean; mailSent: boolean } = {
    platformTells: false,
    local: true,
    mailSent: false,
  },
): void {
  biz.mailSent = c.mailSent;
  const t = summarize('usp_bookings_get', { booking: b }, [], {
    ...CTX,
    platformTells: c.platformTells,
    local: c.local,
  });
  const x = expected(b);
  const say = (cond: boolean, why: string) => expect(cond, `${why}\n${t}\n${JSON.stringify(b)}`).toBe(true);
  const carried = carriedAmounts(b);
  for (const n of amountsIn(t)) say(carried.has(n), `the text states ${n}, which the result does not carry`);
  for (const m of t.matchAll(/\bPaid (?:in full \()?(\$[\d,.]+)(?: online| so far|\))/g))
    say(minor(m[1]!) === x.paid, `"Paid ${m[1]}" but the completed payments total ${x.paid}`);
  for (const m of t.matchAll(/(\$[\d,.]+) was paid online/g))
    say(minor(m[1]!) === x.paid, `"${m[1]} was paid" but the completed payments total ${x.paid}`);
  for (const m of t.matchAll(/(\$[\d,.]+) is (?:still )?paid at the appointment/g))
    say(minor(m[1]!) === x.atAppointment, `"${m[1]} at the appointment" but ${x.atAppointment} is left`);
  for (const m of t.matchAll(/must pay (\$[\d,.]+)/g))
    say(
      !!x.pending && minor(m[1]!) === x.pending.payment_context.amount_due,
      `"must pay ${m[1]}" without that pending action`,
    );
  for (const m of t.matchAll(/\brefund (\$[\d,.]+)|(\$[\d,.]+) is refunded/g))
    say(minor((m[1] ?? m[2])!) === x.refund, `refund ${m[1] ?? m[2]} but cancellation.refund_amount is ${x.refund}`);
  for (const m of t.matchAll(/\bfee (\$[\d,.]+), (?:refund|nothing)/g))
    say(minor(m[1]!) === x.fee, `fee ${m[1]} but cancellation.fee is ${x.fee}`);
  for (const m of t.matchAll(/(\$[\d,.]+) is due from the person/g))
    say(minor(m[1]!) === x.owed, `${m[1]} due but the result owes ${x.owed}`);
  for (const m of t.matchAll(/payment\.status (\w+)/g))
    say(m[1] === b.payment?.status, `payment.status ${m[1]} but the result says ${b.payment?.status}`);
  for (const m of t.matchAll(/; status (\w+)/g))
    say(m[1] === b.status, `status ${m[1]} but the result says ${b.status}`);
  if (/Nothing is paid online/.test(t)) say(x.paid === 0, 'says nothing is paid online, but a payment completed');
  if (/NOT paid yet/.test(t)) say(!!x.pending, 'says not paid yet without a pending payment action');
  if (/Paid in full|nothing is left to pay/.test(t))
    say(x.atAppointment === 0 && !x.pending && x.owed === 0, 'says paid in full while money is still due');
  const instants = [b.slot.start, b.expires_at, ...(b.actions ?? []).map((a: any) => a.expires_at)]
    .filter(Boolean)
    .map((i) => when(i, ZONE));
  for (const m of t.matchAll(LONG_WHEN))
    say(instants.includes(m[0]), `the text states ${m[0]}, which the result does not carry`);
}

describe('a text states only what its structured result carries', () => {
  it(
    `bookings: every amount, deadline and state (${RUNS} cases)`,
    () => {
      fc.assert(
        fc.property(booking, context, (b, c) => checkBooking(b, c)),
        { numRuns: RUNS },
      );
    },
    CPU_BOUND_MS,
  );

  it(
    `holds and waitlist entries: every deadline and state (${RUNS} cases)`,
    () => {
      fc.assert(
        fc.property(hold, entry, (h, e) => {
          const ht = summarize('usp_availability_hold', { hold: h }, [], CTX);
          for (const m of ht.matchAll(LONG_WHEN)) expect(m[0], ht).toBe(when(h.expires_at, ZONE));
          for (const m of ht.matchAll(/is (\w+)\./g)) expect(m[1], ht).toBe(h.status);
          expect(amountsIn(ht), ht).toEqual([]);
          const et = summarize('usp_waitlist_get', { entry: e }, [], CTX);
          const carried = [e.offered_slot?.start, e.offer_expires_at].filter(Boolean).map((i) => when(i, ZONE));
          for (const m of et.matchAll(LONG_WHEN)) expect(carried, et).toContain(m[0]);
          expect(et, et).toContain(`: ${e.status}, position ${e.position}`);
          expect(amountsIn(et), et).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    CPU_BOUND_MS,
  );
});
