/**
 * The payment provider adapters, in one place: the ones shipped (Stripe), and any a program adds
 * with `registerPaymentAdapter` before it composes a server (the tests' fake provider does). The
 * CLI's payment flags, `--payments`'s choices and the server's wiring all read this list.
 */
import type { PaymentAdapter } from './adapter.js';
import { stripeAdapter } from './stripe.js';

const adapters = new Map<string, PaymentAdapter>([[stripeAdapter.facts.name, stripeAdapter as PaymentAdapter]]);

/** The modes that need no adapter (the sandbox page, an external checkout URL, none): no adapter may take their names. */
const MODES = new Set(['none', 'sandbox', 'external', 'provider']);

export function registerPaymentAdapter<O>(a: PaymentAdapter<O>): void {
  const name = a.facts.name;
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(name) || MODES.has(name))
    throw new Error(`a payment adapter cannot be named ${JSON.stringify(name)}`);
  const taken = adapters.get(name);
  if (taken && taken !== a) throw new Error(`a payment adapter named ${name} is registered already`);
  adapters.set(name, a as PaymentAdapter);
}

export function paymentAdapter(name: string): PaymentAdapter | undefined {
  return adapters.get(name);
}

export function paymentAdapters(): PaymentAdapter[] {
  return [...adapters.values()];
}

/** What `--payments` takes, in the order the help lists it: the sandbox, each adapter, an external checkout, none. */
export function paymentChoices(): string[] {
  return ['sandbox', ...adapters.keys(), 'external', 'none'];
}

/** Every adapter's flags as the CLI's flag table (`OPTIONS`, parsed by node:util's parseArgs) takes them: strings all. */
export function paymentFlagTable(): Record<string, { type: 'string' }> {
  return Object.fromEntries(
    paymentAdapters().flatMap((a) => a.flags.map((f) => [f.name, { type: 'string' as const }])),
  );
}
