/**
 * Issue 40 item 3: the pipeline negotiates the buyer's language from Accept-Language on every call,
 * and each negotiation split the header and asked ICU (`supportedLocalesOf`) about its tags. A header
 * value's language is now found once and kept (256 values at most); no header asks nothing.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { negotiateLocale } from '../../src/domain/index.js';

afterEach(() => vi.restoreAllMocks());

test('the same Accept-Language is negotiated once, with the same answer', () => {
  const header = `xx-${Math.random().toString(36).slice(2, 6)};q=0.9, de-CH;q=0.8, fr;q=0.1`;
  expect(negotiateLocale(header, 'en')).toBe('de-CH');
  const icu = vi.spyOn(Intl.DateTimeFormat, 'supportedLocalesOf');
  expect(negotiateLocale(header, 'en')).toBe('de-CH');
  expect(negotiateLocale(header, null)).toBe('de-CH');
  expect(negotiateLocale(undefined, 'en')).toBe('en');
  expect(negotiateLocale('', undefined)).toBeUndefined();
  expect(icu).not.toHaveBeenCalled();
});

test('a header naming nothing Intl formats answers each caller its own fallback, from the kept verdict', () => {
  const header = `*, ;q=0, !!${Math.random().toString(36).slice(2, 6)}`;
  expect(negotiateLocale(header, 'en')).toBe('en');
  const icu = vi.spyOn(Intl.DateTimeFormat, 'supportedLocalesOf');
  expect(negotiateLocale(header, null)).toBeNull();
  expect(negotiateLocale(header, 'fr')).toBe('fr');
  expect(icu).not.toHaveBeenCalled();
});
