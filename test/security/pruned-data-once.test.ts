/**
 * Issue 40 item 3: an answer for a platform that did not negotiate the waitlist was stringified whole
 * once more, on every call, to look for the word `waitlist` (`prunedData`). What the core shares
 * between answers is frozen all the way down, so a frozen member's verdict is now kept by value: the
 * second answer with the same service or slots stringifies none of them, and says what it said.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { prunedData } from '../../src/operations/core/negotiation.js';

afterEach(() => vi.restoreAllMocks());

const SHARED = new Set(['dev.usp-protocol.services.bookings', 'dev.usp-protocol.services.catalog']);
const deepFreeze = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
};

test('a frozen member is looked at once; the answer is the same data', () => {
  const service = deepFreeze({ id: 'svc_cut', name: 'Cut', capacity: { max: 1 }, hint: { next: '2026-12-02' } });
  expect(prunedData({ service }, SHARED)).toEqual({ service });
  const stringify = vi.spyOn(JSON, 'stringify');
  const data = { service };
  expect(prunedData(data, SHARED)).toBe(data);
  expect(stringify).not.toHaveBeenCalled();
});

test('frozen slots naming the waitlist are pruned as before, from the kept verdict', () => {
  const slots = [deepFreeze({ id: 'a', state: 'open' }), deepFreeze({ id: 'b', state: 'waitlist' })];
  const first = prunedData({ slots, next_page: null }, SHARED);
  expect(first).toEqual({ slots: [{ id: 'a', state: 'open' }], next_page: null });
  const stringify = vi.spyOn(JSON, 'stringify');
  expect(prunedData({ slots, next_page: null }, SHARED)).toEqual(first);
  expect(stringify.mock.calls.every(([v]) => v === null)).toBe(true);
});

test('the same verdict as the whole text, whatever the data', () => {
  const cases: Record<string, unknown>[] = [
    { waitlist_position: 3 },
    { note: 'join the waitlist' },
    { skipped: undefined, service: deepFreeze({ capacity: { waitlist: true } }) },
    { list: [deepFreeze({ a: 1 }), { b: 'waitlist' }] },
    { list: [], n: 1, s: 'x' },
    { unfrozen: { deep: { state: 'waitlist' } } },
  ];
  for (const data of cases) {
    const named = JSON.stringify(data).includes('waitlist');
    expect(prunedData(data, SHARED) !== data).toBe(named);
    expect(prunedData(data, new Set([...SHARED, 'dev.usp-protocol.services.waitlist']))).toBe(data);
  }
});
