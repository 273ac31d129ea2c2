/**
 * The protocol's business rules are the domain's: pure functions over plain values that report each
 * problem with its path, usable without the business-file reader (which only parses and reports).
 */
import { describe, expect, test } from 'vitest';
import { serviceRules, wholeFileRules, formatPath, type PathSegment } from '../../src/domain/index.js';

const collect = (run: (add: (path: PathSegment[], message: string) => void) => void) => {
  const out: string[] = [];
  run((path, message) => out.push(`${formatPath(path)}: ${message}`));
  return out;
};

const paidAppointment = {
  type: 'appointment',
  duration: {},
  pricing: { model: 'fixed', amount: 4500 },
  policies: { requires_payment: true, payment_timing: 'at_booking' },
  requirements: ['alice'],
};

describe('service rules: the USP §3.11 payment and pricing combinations and capacity', () => {
  test('a consistent paid appointment has no issue', () => {
    expect(collect((add) => serviceRules(paidAppointment, add))).toEqual([]);
  });

  test('a paid service priced "free" without a payment timing is reported at both members', () => {
    const s = { ...paidAppointment, pricing: { model: 'free' }, policies: { requires_payment: true } };
    expect(collect((add) => serviceRules(s, add))).toEqual([
      'pricing.model: must not be "free" when policies.requires_payment is true (USP §3.11)',
      'policies.payment_timing: is required when requires_payment is true (USP §3.11)',
    ]);
  });

  test('a group service without capacity, and a fixed deposit above the price, are reported', () => {
    const s = {
      ...paidAppointment,
      type: 'group',
      pricing: { model: 'fixed', amount: 1000, deposit: { type: 'fixed', value: 2000 } },
    };
    expect(collect((add) => serviceRules(s, add))).toEqual([
      'pricing.deposit.value: must not exceed pricing.amount (1000)',
      'capacity: is required for group services (capacity.max >= 1)',
    ]);
  });
});

describe('whole-file rules: references, unique ids and one currency', () => {
  test('a duplicate resource id, an unknown resource and a foreign currency are each reported with their path', () => {
    const file = {
      business: { currency: 'USD', locations: [] },
      resources: [
        { id: 'alice', type: 'staff' },
        { id: 'alice', type: 'staff' },
      ],
      services: [{ id: 'cut', pricing: { currency: 'EUR' }, requirements: [{ type: 'staff', resource_ids: ['bob'] }] }],
    };
    expect(collect((add) => wholeFileRules(file, add))).toEqual([
      'resources[1].id: duplicate resource id "alice" (also at resources[0])',
      'services[0].pricing.currency: must equal the business currency "USD" (got "EUR")',
      'services[0].requirements[0].resource_ids[0]: names no resource ("bob")',
    ]);
  });
});
