/**
 * The newer text's flow vectors 106 (fixed deposit) and 107 (percentage deposit), on both doors.
 * The vectors speak of a UCP-Native checkout (a selected payment term: an immediate schedule for the
 * deposit, the balance at the appointment); our Standalone booking maps it as: the checkout total is
 * the booking's `payment.amount`, the immediate schedule is the payment action's `amount_due`, which
 * the business computes (a percentage too: the platform never recomputes it), confirm-payment
 * collects only that immediate amount in one payment (no split payments; the total is refused as
 * `payment_amount_mismatch`), and the balance stays for the appointment (`deposit_paid`).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorCodes, meta, type McpConn } from '../mcp/helpers.js';
import { describeSpecNext, specNextVector } from '../support/spec-next.js';

const flow = (id: string) => specNextVector(`flow/${id}`);
const PRICE = 18000;

/** The demo business whose bridal trial (deposit_required) takes the vector's catalog deposit. */
function withDeposit(deposit: { type: string; value: number }) {
  const def = demoBusiness();
  for (const s of def.services)
    if (s.id === 'svc_bridal_trial') s.pricing.deposit = { ...deposit, refundable: true } as never;
  return def;
}

/** The immediate amount the business states, scaled from the vector's checkout to our price. */
const immediateFor = (v: any) =>
  v.catalog_deposit.type === 'fixed' ? v.catalog_deposit.value : Math.round((PRICE * v.catalog_deposit.value) / 100);

let servers: TestServer[] = [];
let conns: McpConn[] = [];
beforeAll(() => {
  servers = [];
  conns = [];
});
afterAll(async () => {
  for (const c of conns) await c.close();
  for (const s of servers) await s.close();
});

async function serverFor(v: any): Promise<{ t: TestServer; conn: McpConn }> {
  const t = await startTestServer({ business: withDeposit(v.catalog_deposit) });
  const conn = await connectMcp('v2', 'memory', t);
  servers.push(t);
  conns.push(conn);
  return { t, conn };
}

describeSpecNext('flow vectors 106-107 (deposits), mapped onto our checkout, on both doors', () => {
  for (const id of ['106-ucp-native-fixed-deposit', '107-ucp-native-percentage-deposit']) {
    it(`${id}: the business states the immediate deposit, the full total stays the price, only the deposit is collected now (REST)`, async () => {
      const v = flow(id);
      const { t } = await serverFor(v);
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_bridal_trial',
        start_date: day(4),
        end_date: day(4),
      });
      const b = (
        await t.call('POST', '/bookings', { service_id: 'svc_bridal_trial', slot_id: q.body.slots[0].id, buyer: BUYER })
      ).body.booking;
      const action = b.actions.find((a: any) => a.type === 'payment' && a.status === 'pending');
      // One selected term: the immediate schedule, computed by the business; the total is the price.
      expect([b.status, b.payment.timing, b.payment.amount, action.payment_context.amount_due]).toEqual([
        'requires_action',
        'deposit_required',
        PRICE,
        immediateFor(v),
      ]);
      expect(v.then.immediate_only && !v.then.split_payments).toBe(true);
      // Charging the total instead of the immediate schedule is refused and changes nothing.
      const total = await t.call('POST', `/bookings/${b.id}/confirm-payment`, {
        payment_result: { status: 'paid', transaction_id: 'txn_total', amount_paid: PRICE, currency: 'USD' },
      });
      expect(total.body.messages.map((m: any) => m.code)).toEqual(['payment_amount_mismatch']);
      const now = await t.call('POST', `/bookings/${b.id}/confirm-payment`, {
        payment_result: {
          status: 'deposit_paid',
          transaction_id: 'txn_deposit',
          amount_paid: immediateFor(v),
          currency: 'USD',
        },
      });
      expect([now.body.booking.status, now.body.booking.payment.status, now.body.booking.payment.amount]).toEqual([
        'confirmed',
        'deposit_paid',
        PRICE,
      ]);
    });

    it(`${id}: the same on MCP`, async () => {
      const v = flow(id);
      const { t, conn } = await serverFor(v);
      const q = await conn.call('usp_availability_query', {
        service_id: 'svc_bridal_trial',
        start_date: day(5),
        end_date: day(5),
      });
      const made = await conn.call('usp_bookings_create', {
        service_id: 'svc_bridal_trial',
        slot_id: q.structuredContent.slots[0].id,
        buyer: BUYER,
        ...meta(),
      });
      const b = made.structuredContent.booking;
      expect(b.actions[0].payment_context.amount_due).toBe(immediateFor(v));
      const total = await conn.call('usp_bookings_confirm_payment', {
        booking_id: b.id,
        payment_result: { status: 'paid', transaction_id: 'txn_total', amount_paid: PRICE, currency: 'USD' },
        ...meta(),
      });
      expect(errorCodes(total)).toEqual(['payment_amount_mismatch']);
      const now = await conn.call('usp_bookings_confirm_payment', {
        booking_id: b.id,
        payment_result: {
          status: 'deposit_paid',
          transaction_id: 'txn_deposit',
          amount_paid: immediateFor(v),
          currency: 'USD',
        },
        ...meta(),
      });
      expect([now.structuredContent.booking.status, now.structuredContent.booking.payment.status]).toEqual([
        'confirmed',
        'deposit_paid',
      ]);
      expect((await t.call('GET', `/bookings/${b.id}`)).body.booking.payment.amount).toBe(PRICE);
    });
  }
});
