/**
 * Money is written one way everywhere (tool summaries, business messages, the buyer's pages):
 * minor units in the currency, in en-US unless a language is given, and a currency Intl does not
 * know still reads as an amount and its code.
 */
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/domain/index.js';

describe('formatMoney writes minor units as people read them', () => {
  it('in en-US by default, in the language given otherwise', () => {
    expect(formatMoney(11000, 'USD')).toBe('$110.00');
    expect(formatMoney(5550, 'EUR', 'fr-FR')).toMatch(/^55,50\s€$/);
    expect(formatMoney(5550, 'EUR')).toBe('€55.50');
  });

  it('a code Intl refuses is written as the amount and the code, and does not poison the next call', () => {
    expect(formatMoney(1234, 'NOT-A-CURRENCY')).toBe('12.34 NOT-A-CURRENCY');
    expect(formatMoney(1234, 'USD')).toBe('$12.34');
  });
});
