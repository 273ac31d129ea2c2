/**
 * The Stripe flow on PostgreSQL: the payment job, the applied event ids and the provider ids live
 * in the shared database, so a replayed event is applied once and a refund is asked once there too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe.skipIf(!PG_URL)(
  PG_URL ? 'Stripe payments on PostgreSQL' : noteSkipped('Stripe payments on PostgreSQL'),
  () => {
    let rig: StripeRig;
    let schema: string;
    beforeEach(async () => {
      schema = schemaName('stripe');
      rig = await startStripeRig({ db: urlWithSchema(schema) });
    }, 60_000);
    afterEach(async () => {
      await rig.close();
      await dropSchema(schema);
    });

    it('a replayed completed event confirms once; the cancel refund is asked once and announced once', async () => {
      const b = await paidBooking(rig.t);
      const s = await sessionOf(rig, b.id);
      const paid = rig.stripe.pay(s.id);
      expect(await rig.stripe.deliver(paid)).toBe(200);
      expect(await rig.stripe.deliver(paid)).toBe(200);
      expect((await bookingOf(rig.t, b.id)).status).toBe('confirmed');
      await rig.t.call('POST', `/bookings/${b.id}/cancel`, {});
      await settleJobs(rig.t, b.id);
      await settleJobs(rig.t, b.id);
      expect(rig.stripe.refunds).toHaveLength(1);
      expect(await eventsOf(rig.t, b.id)).toEqual(['booking.confirmed', 'booking.canceled', 'booking.refund_issued']);
    });
  },
);
