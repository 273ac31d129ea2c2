/**
 * The business sees a booking's money with the provider's ids: the admin API's booking history
 * carries what was paid, refunded and disputed through Stripe, and the dashboard's booking page
 * shows it in its Money card.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY } from '../support/server.js';
import { paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe("a booking's money as the business sees it", () => {
  let rig: StripeRig;
  beforeEach(async () => {
    rig = await startStripeRig();
  });
  afterEach(() => rig.close());

  it('paid, refunded and disputed, with the session, payment intent, refund and dispute ids', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    const paid = rig.stripe.pay(s.id);
    await rig.stripe.deliver(paid);
    const pi = paid.data.object.payment_intent;
    await rig.stripe.deliver(rig.stripe.dispute(pi));
    await rig.t.call('POST', `/bookings/${b.id}/cancel`, {});
    await settleJobs(rig.t, b.id);
    const h = await rig.t.call('GET', `/admin/bookings/${b.id}`, undefined, { apiKey: ADMIN_KEY, profile: null });
    const m = h.body.money;
    expect([m.paid, m.refunded, m.provider]).toEqual([11000, 11000, 'stripe']);
    expect(m.payments).toEqual([expect.objectContaining({ status: 'paid', session_id: s.id, payment_ref: pi })]);
    expect(m.refunds).toEqual([
      expect.objectContaining({ status: 'succeeded', refund_id: rig.stripe.refunds[0].id, payment_ref: pi }),
    ]);
    expect(m.disputes).toEqual([expect.objectContaining({ status: 'opened', reason: 'unauthorized' })]);

    await addBusinessUser(rig.t.server.store, 'owner@salon.example', 'correct horse battery staple', rig.t.clock.now());
    const jar: string[] = [];
    const login = await fetch(`${rig.t.url}/admin/login`);
    jar.push(...login.headers.getSetCookie().map((c) => c.split(';')[0]));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1];
    const signed = await fetch(`${rig.t.url}/admin/login`, {
      method: 'POST',
      headers: { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: csrf,
        email: 'owner@salon.example',
        password: 'correct horse battery staple',
      }),
      redirect: 'manual',
    });
    jar.push(...signed.headers.getSetCookie().map((c) => c.split(';')[0]));
    const page = await (
      await fetch(`${rig.t.url}/admin/ui/bookings/${b.id}`, { headers: { cookie: jar.join('; ') } })
    ).text();
    expect(page).toContain('<h2 id="money">Money</h2>');
    for (const id of [s.id, pi, rig.stripe.refunds[0].id, m.disputes[0].dispute_id]) expect(page).toContain(id);
  });
});
