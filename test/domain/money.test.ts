/**
 * Money is written one way everywhere (tool summaries, business messages, the buyer's pages):
 * minor units in the currency, in en-US unless a language is given, and a currency Intl does not
 * know still reads as an amount and its code.
 */
import { describe, expect, it } from 'vitest';
import { currencyDigits, formatMoney, majorAmount, parseMoney } from '../../src/domain/index.js';

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

describe("amounts follow the currency's own exponent (USD 2, JPY 0, KWD 3)", () => {
  it('formatMoney and majorAmount divide by the exponent, not by 100', () => {
    expect(formatMoney(700, 'JPY')).toBe('¥700');
    expect(formatMoney(12345, 'KWD')).toMatch(/^KWD\s12.345$/);
    expect(majorAmount(700, 'JPY')).toBe('700');
    expect(majorAmount(12345, 'KWD')).toBe('12.345');
    expect(majorAmount(5, 'USD')).toBe('0.05');
    expect(currencyDigits('NOT-A-CURRENCY')).toBe(2);
  });

  it('parseMoney reads what people type in the major unit and refuses the ambiguous in words', () => {
    const ok = (typed: string, cur: string) => parseMoney(typed, cur);
    expect(ok('70', 'USD')).toEqual({ ok: true, amount: 7000 });
    expect(ok('70.00', 'USD')).toEqual({ ok: true, amount: 7000 });
    expect(ok('70.5', 'USD')).toEqual({ ok: true, amount: 7050 });
    expect(ok('USD 70', 'USD')).toEqual({ ok: true, amount: 7000 });
    expect(ok('1,200', 'JPY')).toEqual({ ok: true, amount: 1200 });
    expect(ok('¥700', 'JPY')).toEqual({ ok: true, amount: 700 });
    expect(ok('1.5', 'KWD')).toEqual({ ok: true, amount: 1500 });
    expect(ok('1.234', 'KWD')).toEqual({ ok: true, amount: 1234 });
    for (const [typed, cur] of [
      ['70.001', 'USD'],
      ['1,2', 'USD'],
      ['70,00', 'EUR'],
      ['700.5', 'JPY'],
      ['1.2345', 'KWD'],
      ['', 'USD'],
      ['1e3', 'USD'],
      ['99999999999999999999', 'USD'],
    ]) {
      const r = parseMoney(typed, cur);
      expect(r.ok, `${typed} ${cur}`).toBe(false);
      if (!r.ok) expect(r.message).toContain(`is not an amount in ${cur}`);
    }
  });
});
