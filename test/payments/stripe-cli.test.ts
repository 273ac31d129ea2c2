/**
 * The whole paid flow as an operator runs it: `usp-server serve --config FILE --payments stripe
 * --stripe-secret-key ... --stripe-webhook-secret ... --stripe-api-url ...` in its own process
 * (its own clock: instants are derived from the real time here), against the Stripe emulator.
 * A paid booking goes from requires_action to confirmed on a signed checkout.session.completed,
 * cancelling refunds it, a dispute is recorded, and the keys appear in no log, metric or profile.
 */
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeCli, REPO_ROOT, type RunningCli } from '../support/cli.js';
import { ensureBuilt } from '../support/build.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';

const ADMIN = 'cli-admin-key-0123456789abcdef';
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

describe('usp-server serve --payments stripe, end to end', () => {
  let stripe: EmulatedStripe;
  let cli: RunningCli;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(cli.url + path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const until = async <T>(f: () => Promise<T | undefined> | T | undefined): Promise<T> => {
    for (let i = 0; i < 100; i++) {
      const v = await f();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('timed out');
  };

  beforeAll(async () => {
    ensureBuilt();
    stripe = await startStripeEmulator({ now: Date.now });
    const dir = mkdtempSync(join(tmpdir(), 'usp-stripe-'));
    const config = join(dir, 'business.json');
    writeFileSync(config, readFileSync(join(REPO_ROOT, 'src/server/demo-business.json')));
    cli = await startServeCli([
      '--config',
      config,
      '--db',
      ':memory:',
      '--port',
      '0',
      '--admin-key',
      ADMIN,
      '--payments',
      'stripe',
      '--stripe-secret-key',
      stripe.secretKey,
      '--stripe-webhook-secret',
      stripe.webhookSecret,
      '--stripe-api-url',
      stripe.url,
    ]);
    stripe.webhookUrl = `${cli.url}/payments/stripe/webhook`;
  }, 60_000);
  afterAll(async () => {
    await cli?.stop();
    await stripe?.close();
  });

  it('takes a paid booking to confirmed on a signed completed event, refunds on cancel, records a dispute; the keys are never shown', async () => {
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const q = await call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: date,
      end_date: date,
    });
    const made = await call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    expect(made.body.booking.status).toBe('requires_action');
    const id = made.body.booking.id;
    const session = await until(() => [...stripe.sessions.values()].find((s) => s.client_reference_id === id));
    const paid = stripe.pay(session.id);
    expect(await stripe.deliver(paid)).toBe(200);
    expect((await call('GET', `/bookings/${id}`)).body.booking.status).toBe('confirmed');

    // A second booking is disputed after payment.
    const later = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);
    const q2 = await call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: later,
      end_date: later,
    });
    const other = await call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q2.body.slots[0].id,
      buyer: BUYER,
    });
    expect(other.body.booking?.status, JSON.stringify(other.body.messages)).toBe('requires_action');
    const s2 = await until(() =>
      [...stripe.sessions.values()].find((s) => s.client_reference_id === other.body.booking.id),
    );
    const paid2 = stripe.pay(s2.id);
    expect(await stripe.deliver(paid2)).toBe(200);
    expect(await stripe.deliver(stripe.dispute(paid2.data.object.payment_intent))).toBe(200);
    expect((await call('GET', `/bookings/${other.body.booking.id}`)).body.booking.dispute.status).toBe('opened');

    const canceled = await call('POST', `/bookings/${id}/cancel`, {});
    expect(canceled.body.booking.status).toBe('canceled');
    await until(() => (stripe.refunds.length > 0 ? true : undefined));
    expect(stripe.refunds[0]).toMatchObject({ amount: 11000, payment_intent: paid.data.object.payment_intent });
    const refunded = await until(async () => {
      const b = (await call('GET', `/bookings/${id}`)).body.booking;
      return b.payment.status === 'refunded' ? b : undefined;
    });
    expect(refunded.cancellation.refund_amount).toBe(11000);

    const shown = [
      cli.stderr(),
      await (await fetch(`${cli.url}/metrics`)).text(),
      JSON.stringify((await call('GET', '/.well-known/usp')).body),
    ].join('\n');
    expect(shown).not.toContain(stripe.secretKey);
    expect(shown).not.toContain(stripe.webhookSecret);
  }, 60_000);
});
