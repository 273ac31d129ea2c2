/**
 * A provider adapter is one declaration and one registration: the CLI's flag table, `--payments`'s
 * choices, the flags' checks (required, environment fallback, URL) and the start-up refusal read
 * the adapters, so Acme Pay (written only under test/) gets them as Stripe does, with the same words.
 */
import { describe, expect, it } from 'vitest';
import { paymentFlagTable, registerPaymentAdapter } from '../../src/payments/index.js';
import { paymentOptions } from '../../src/server/cli/payments.js';
import { checkPaymentOptions } from '../../src/server/payments-wiring.js';
import { acmeAdapter, registerAcme } from '../support/acme-provider.js';

const flags = (f: Record<string, string>) => f as unknown as Parameters<typeof paymentOptions>[0];

describe('payment provider adapters', () => {
  registerAcme();

  it("the flag table holds every adapter's flags", () => {
    expect(Object.keys(paymentFlagTable())).toEqual(
      expect.arrayContaining([
        'stripe-secret-key',
        'stripe-webhook-secret',
        'stripe-api-url',
        'acme-api-key',
        'acme-webhook-secret',
        'acme-api-url',
      ]),
    );
  });

  it('--payments names a registered adapter; its flags fall back on its environment variables', () => {
    expect(
      paymentOptions(flags({ payments: 'acme', 'acme-api-key': 'k', 'acme-api-url': 'http://127.0.0.1:9' }), {
        ACME_WEBHOOK_SECRET: 's',
      }),
    ).toEqual({
      provider: 'acme',
      acme: { apiKey: 'k', webhookSecret: 's', apiUrl: 'http://127.0.0.1:9' },
    });
    expect(
      paymentOptions(flags({ payments: 'stripe' }), { STRIPE_SECRET_KEY: 'sk', STRIPE_WEBHOOK_SECRET: 'wh' }),
    ).toEqual({
      provider: 'stripe',
      stripe: { secretKey: 'sk', webhookSecret: 'wh' },
    });
    expect(() => paymentOptions(flags({ payments: 'paypal' }), {})).toThrow(
      '--payments must be one of sandbox, stripe, acme, external, none, got "paypal"',
    );
  });

  it("a missing required flag or a bad URL is refused in the adapter's own words", () => {
    expect(() => paymentOptions(flags({ payments: 'acme', 'acme-api-key': 'k' }), {})).toThrow(
      '--payments acme needs --acme-webhook-secret SECRET (or ACME_WEBHOOK_SECRET)',
    );
    expect(() =>
      paymentOptions(
        flags({ payments: 'acme', 'acme-api-key': 'k', 'acme-webhook-secret': 's', 'acme-api-url': 'ftp://x' }),
        {},
      ),
    ).toThrow('--acme-api-url must be an http(s) URL, got "ftp://x"');
    expect(() => checkPaymentOptions({ provider: 'acme' }, false)).toThrow(
      '--payments acme needs --acme-api-key (or ACME_API_KEY) and --acme-webhook-secret (or ACME_WEBHOOK_SECRET)',
    );
    expect(() => checkPaymentOptions({ provider: 'stripe' }, false)).toThrow(
      '--payments stripe needs --stripe-secret-key (or STRIPE_SECRET_KEY) and --stripe-webhook-secret (or STRIPE_WEBHOOK_SECRET)',
    );
  });

  it("an adapter cannot take a mode's name or another adapter's", () => {
    expect(() => registerPaymentAdapter({ ...acmeAdapter, facts: { ...acmeAdapter.facts, name: 'sandbox' } })).toThrow(
      'cannot be named "sandbox"',
    );
    expect(() => registerPaymentAdapter({ ...acmeAdapter, facts: { ...acmeAdapter.facts, name: 'stripe' } })).toThrow(
      'named stripe is registered already',
    );
    expect(() => registerAcme()).not.toThrow();
  });
});
