/**
 * Every payment provider the flow tests run against, behind one rig: Stripe (its adapter in
 * src/payments/, the Stripe emulator) and Acme Pay (an adapter and emulator written only under
 * test/support, registered the way any further provider would be). What differs (the emulator's
 * objects, the signature header and scheme) is answered here; the tests say only what a provider does.
 */
import type { BusinessDef } from '../../src/domain/business.js';
import { startAcmeEmulator } from '../support/acme-emulator.js';
import { registerAcme } from '../support/acme-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startStripeEmulator } from '../support/stripe-emulator.js';
import { TEST_NOW } from '../support/time.js';
import { settleJobs } from './helpers.js';

type Obj = Record<string, any>;

export interface Checkout {
  id: string;
  url: string;
  amount: number;
  currency: string;
  expiresMs: number;
  bookingId: string;
  actionId: string;
}

export interface ProviderRig {
  name: string;
  label: string;
  /** The provider's checkout life, as its API enforces it. */
  ttl: { min: number; max: number };
  signatureHeader: string;
  t: TestServer;
  webhookUrl: string;
  /** The booking's checkout at the provider, once the worker made it. */
  checkout(bookingId: string): Promise<Checkout | undefined>;
  /** Calls made to the provider's API so far. */
  calls(): Array<{ path: string; key?: string }>;
  /** Pay an open checkout at the provider: the signed event it would send, and the payment's id. */
  pay(checkoutId: string): { event: Obj; paymentRef: string };
  /** The provider's own expiry of a checkout: the event it would send. */
  expire(checkoutId: string): Obj;
  /** Whether the provider holds the checkout closed (nobody can pay on it). */
  closedAtProvider(checkoutId: string): boolean;
  refunds(): Array<{ amount: number; paymentRef: string }>;
  sign(payload: string, secret?: string): string;
  deliver(event: Obj): Promise<number>;
  close(): Promise<void>;
}

export const PROVIDERS = ['stripe', 'acme'] as const;

export async function startProviderRig(
  name: (typeof PROVIDERS)[number],
  opts: { business?: BusinessDef } = {},
): Promise<ProviderRig> {
  let t: TestServer | undefined;
  const now = () => t?.clock.now() ?? TEST_NOW;
  if (name === 'stripe') {
    const emu = await startStripeEmulator({ now });
    t = await startTestServer({
      business: opts.business,
      payments: {
        provider: 'stripe',
        stripe: { secretKey: emu.secretKey, webhookSecret: emu.webhookSecret, apiUrl: emu.url },
        startWorker: false,
      },
    });
    emu.webhookUrl = `${t.url}/payments/stripe/webhook`;
    const server = t;
    return {
      name,
      label: 'Stripe',
      ttl: { min: 30 * 60_000, max: 24 * 3600_000 },
      signatureHeader: 'Stripe-Signature',
      t: server,
      webhookUrl: emu.webhookUrl,
      async checkout(bookingId) {
        await settleJobs(server, bookingId);
        const s = [...emu.sessions.values()].find((x) => x.client_reference_id === bookingId);
        if (!s) return undefined;
        const base = {
          id: s.id,
          url: s.url,
          amount: s.amount_total,
          currency: s.currency.toUpperCase(),
          expiresMs: s.expires_at * 1000,
        };
        return { ...base, bookingId: s.metadata.booking_id, actionId: s.metadata.action_id };
      },
      calls: () => emu.requests.map((r) => ({ path: r.path, key: r.idempotencyKey })),
      pay(id) {
        const event = emu.pay(id);
        return { event, paymentRef: event.data.object.payment_intent };
      },
      expire: (id) => emu.expire(id),
      closedAtProvider: (id) => emu.sessions.get(id)!.status === 'expired',
      refunds: () => emu.refunds.map((r) => ({ amount: r.amount, paymentRef: r.payment_intent })),
      sign: (payload, secret) => emu.sign(payload, secret ? { secret } : {}),
      deliver: (ev) => emu.deliver(ev),
      close: async () => (await server.close(), await emu.close()),
    };
  }
  registerAcme();
  const emu = await startAcmeEmulator({ now });
  t = await startTestServer({
    business: opts.business,
    payments: {
      provider: 'acme',
      acme: { apiKey: emu.apiKey, webhookSecret: emu.webhookSecret, apiUrl: emu.url },
      startWorker: false,
    },
  });
  emu.webhookUrl = `${t.url}/payments/acme/webhook`;
  const server = t;
  return {
    name,
    label: 'Acme Pay',
    ttl: { min: 45 * 60_000, max: 6 * 3600_000 },
    signatureHeader: 'Acme-Signature',
    t: server,
    webhookUrl: emu.webhookUrl,
    async checkout(bookingId) {
      await settleJobs(server, bookingId);
      const c = [...emu.checkouts.values()].find((x) => x.reference === bookingId);
      if (!c) return undefined;
      return {
        id: c.id,
        url: c.pay_url,
        amount: c.amount,
        currency: c.currency,
        expiresMs: c.expires_at,
        bookingId: c.reference,
        actionId: c.action,
      };
    },
    calls: () => emu.requests.map((r) => ({ path: r.path, key: r.key })),
    pay(id) {
      const event = emu.pay(id);
      return { event, paymentRef: event.data.payment };
    },
    expire: (id) => emu.expire(id),
    closedAtProvider: (id) => emu.checkouts.get(id)!.state === 'closed',
    refunds: () => emu.refunds.map((r) => ({ amount: r.amount, paymentRef: r.payment })),
    sign: (payload, secret) => emu.sign(payload, secret ? { secret } : {}),
    deliver: (ev) => emu.deliver(ev),
    close: async () => (await server.close(), await emu.close()),
  };
}
