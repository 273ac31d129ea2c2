/**
 * Webhook events as MCP notifications (spec MCP binding "Webhook Notifications"; CONFORMANCE §5,
 * §10, decision D16): a session that made a booking receives `usp_webhook` JSON-RPC notifications
 * (event, event_id, booking_id, timestamp, data) when it is confirmed and canceled, on stdio and on
 * Streamable HTTP, with v1 and v2 clients; a session acting for another platform never sees them;
 * a confirmation made by the business over REST reaches the MCP session that booked.
 * Notifications are awaited with a bounded poll, never a fixed sleep.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, OTHER_PLATFORM, PLATFORM } from '../support/server.js';
import {
  connectMcp,
  errorCodes,
  meta,
  openEnv,
  waitFor,
  type McpConn,
  type McpEnv,
  type SdkLine,
  type TransportKind,
} from './helpers.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Waits (bounded) for the `event` notification about `bookingId` and returns its params. */
async function expectEvent(conn: McpConn, event: string, bookingId: string): Promise<Record<string, any>> {
  const find = () => conn.notifications.find((n) => n.event === event && n.booking_id === bookingId);
  await waitFor(
    () => find() !== undefined,
    5000,
    () =>
      `${conn.label}: ${event} for ${bookingId}; got ${JSON.stringify(conn.notifications.map((n) => [n.event, n.booking_id ?? n.entry_id]))}`,
  );
  const n = find()!;
  expect(n).toMatchObject({
    event,
    event_id: expect.any(String),
    booking_id: bookingId,
    timestamp: expect.stringMatching(ISO_UTC),
  });
  expect(n.data).toMatchObject({ id: bookingId });
  return n;
}

/** Books a paid massage (requires_action), pays it, cancels it; returns the booking id. */
async function payThenCancel(
  env: McpEnv,
  conn: McpConn,
  profile: string,
  dayOffset: number,
  slotIndex: number,
): Promise<string> {
  const q = await conn.call('usp_availability_query', {
    service_id: 'svc_massage_60',
    start_date: env.day(dayOffset),
    end_date: env.day(dayOffset),
  });
  const slot = q.structuredContent.slots[slotIndex];
  const created = await conn.call('usp_bookings_create', {
    service_id: 'svc_massage_60',
    slot_id: slot.id,
    buyer: BUYER,
    ...meta(profile, { idempotency_key: randomUUID() }),
  });
  expect(errorCodes(created)).toEqual([]);
  const booking = created.structuredContent.booking;
  expect(booking.status).toBe('requires_action');
  const due = booking.actions[0].payment_context;
  const paid = await conn.call('usp_bookings_confirm_payment', {
    booking_id: booking.id,
    payment_result: {
      status: 'paid',
      transaction_id: `txn_${randomUUID()}`,
      amount_paid: due.amount_due,
      currency: due.currency,
      provider: 'test',
    },
    ...meta(profile, { idempotency_key: randomUUID() }),
  });
  expect(paid.structuredContent.booking.status).toBe('confirmed');
  const confirmed = await expectEvent(conn, 'booking.confirmed', booking.id);
  expect(confirmed.data.status).toBe('confirmed');

  const canceled = await conn.call('usp_bookings_cancel', {
    booking_id: booking.id,
    ...meta(profile, { idempotency_key: randomUUID() }),
  });
  expect(canceled.structuredContent.booking.status).toBe('canceled');
  const n = await expectEvent(conn, 'booking.canceled', booking.id);
  expect(n.data.status).toBe('canceled');
  expect(n.event_id).not.toBe(confirmed.event_id);
  return booking.id;
}

const TARGETS: Array<{ name: string; line: SdkLine; kind: TransportKind }> = [
  { name: 'v2 client over stdio', line: 'v2', kind: 'stdio' },
  { name: 'v1 client over stdio', line: 'v1', kind: 'stdio' },
  { name: 'v2 client over Streamable HTTP', line: 'v2', kind: 'http' },
  { name: 'v1 client over Streamable HTTP', line: 'v1', kind: 'http' },
];

describe.each(TARGETS)(
  '$name: a session receives usp_webhook notifications for the bookings it made',
  ({ line, kind }) => {
    let env: McpEnv;
    beforeAll(async () => {
      env = await openEnv(line, kind);
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it('paying (confirm_payment) and cancelling a booking -> booking.confirmed then booking.canceled notifications', async () => {
      const id = await payThenCancel(env, env.conn, PLATFORM, 2, 0);
      const methods = env.conn.notificationMethods;
      expect(methods.length).toBe(env.conn.notifications.length);
      expect(new Set(methods)).toEqual(new Set(['usp_webhook']));
      const order = env.conn.notifications.filter((n) => n.booking_id === id).map((n) => n.event);
      expect(order.indexOf('booking.confirmed')).toBeLessThan(order.indexOf('booking.canceled'));
    });

    if (kind !== 'stdio') {
      it('a second session acting for another platform receives its own events and none of the first session\u2019s', async () => {
        const other = await connectMcp(line, kind, env.server!.url);
        try {
          const mine = await payThenCancel(env, env.conn, PLATFORM, 3, 0);
          const theirs = await payThenCancel(env, other, OTHER_PLATFORM, 3, 1);
          expect(other.notifications.some((n) => n.booking_id === mine)).toBe(false);
          expect(env.conn.notifications.some((n) => n.booking_id === theirs)).toBe(false);
        } finally {
          await other.close();
        }
      });

      it('a manual-confirmation booking confirmed by the business over REST notifies the MCP session that made it', async () => {
        const t = env.server!;
        const q = await env.conn.call('usp_availability_query', {
          service_id: 'svc_color_consult',
          start_date: env.day(4),
          end_date: env.day(4),
        });
        const created = await env.conn.call('usp_bookings_create', {
          service_id: 'svc_color_consult',
          slot_id: q.structuredContent.slots[0].id,
          buyer: BUYER,
          ...meta(PLATFORM, { idempotency_key: randomUUID() }),
        });
        const booking = created.structuredContent.booking;
        expect(booking.status).toBe('pending');

        const rest = await t.call('POST', `/bookings/${booking.id}/confirm`, {}, { profile: null, apiKey: ADMIN_KEY });
        expect(rest.status).toBe(200);
        expect(rest.body.booking.status).toBe('confirmed');

        const n = await expectEvent(env.conn, 'booking.confirmed', booking.id);
        expect(n.data.status).toBe('confirmed');
      });
    }
  },
);
