/**
 * Finding and erasing a person in stored JSON: by email in any case, by phone whatever its
 * spelling (with or without the country code), the walk-in placeholder included; erasing replaces
 * the person, drops what their booking carried for them, takes their name out of free text and
 * never touches ids, codes or someone else.
 */
import { describe, expect, it } from 'vitest';
import {
  ERASED_BUYER,
  erasePerson,
  isPerson,
  mentionsPerson,
  personOf,
  phoneOnlyEmail,
  samePhone,
} from '../../src/domain/personal-data.js';

const zelda = {
  first_name: 'Zelda',
  last_name: 'Quinton',
  email: 'Zelda.Quinton@Example.org',
  phone_number: '+1 (555) 010-7788',
};
const ada = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

describe('a person is found by email or phone', () => {
  it('email matches in any case; phone by digits, with or without the country code, but not a shorter fragment', () => {
    expect(isPerson(zelda, personOf('zelda.quinton@example.org', undefined)!)).toBe(true);
    expect(isPerson(zelda, personOf(undefined, '555 010 7788')!)).toBe(true);
    expect(isPerson(ada, personOf('zelda.quinton@example.org', '555 010 7788')!)).toBe(false);
    expect(samePhone('+15550107788', '5550107788')).toBe(true);
    expect(samePhone('+15550107788', '07788')).toBe(false);
    expect(personOf('  ', '12')).toBeNull();
  });

  it("a phone-only walk-in's placeholder email is found by the phone", () => {
    const walkIn = { first_name: 'Otto', last_name: '-', email: phoneOnlyEmail('(555) 010-4242') };
    expect(isPerson(walkIn, personOf(undefined, '+1 555 010 4242')!)).toBe(true);
  });
});

describe('erasing a person', () => {
  const record = {
    booking: {
      id: 'bkg_zelda7quin',
      buyer: zelda,
      recipient: ada,
      notes: 'Zelda likes it short',
      delivery_address: { line1: '1 Main St', city: 'Springfield', country: 'US' },
      cancellation: { canceled_by: 'buyer', reason: 'Zelda Quinton is ill', fee: 0 },
      payment: { amount: 6500, currency: 'USD' },
      slot: { id: 'slot_zelda', start: '2026-12-02T09:00:00-05:00' },
    },
    priv: { slot_key: 'svc|zelda', price_total: 6500 },
  };

  it('replaces the buyer, drops the notes, address and recipient of their booking, and redacts their name only in free text', () => {
    const { value, changed } = erasePerson(record, personOf(zelda.email, undefined)!);
    expect(changed).toBe(true);
    expect(value.booking.buyer).toEqual(ERASED_BUYER);
    expect(value.booking).not.toHaveProperty('notes');
    expect(value.booking).not.toHaveProperty('delivery_address');
    expect(value.booking.recipient).toEqual(ERASED_BUYER);
    expect(value.booking.cancellation).toEqual({ canceled_by: 'buyer', reason: '[erased] [erased] is ill', fee: 0 });
    expect(value.booking.payment).toEqual(record.booking.payment);
    expect(value.booking.slot).toEqual(record.booking.slot);
    expect(value.booking.id).toBe('bkg_zelda7quin');
    expect(value.priv).toEqual(record.priv);
    expect(mentionsPerson(value, personOf(zelda.email, zelda.phone_number)!)).toBe(false);
  });

  it('someone who only receives the service loses only their own object; a value without the person is returned unchanged', () => {
    const { value } = erasePerson(record, personOf(ada.email, undefined)!);
    expect(value.booking.recipient).toEqual(ERASED_BUYER);
    expect(value.booking.buyer).toEqual(zelda);
    expect(value.booking.notes).toBe('Zelda likes it short');
    const untouched = erasePerson(record, personOf('nobody@example.net', undefined)!);
    expect(untouched.changed).toBe(false);
    expect(untouched.value).toBe(record);
  });
});
