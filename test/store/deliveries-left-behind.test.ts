/**
 * `onePerTarget` says whether a due delivery was left behind (a target already taken or busy, the
 * limit reached, or the candidates read possibly not all of them): the runner then looks again when
 * a lane frees, and only then (test/outbox/runner-lanes.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { candidateCount, onePerTarget } from '../../src/store/shared/deliveries.js';
import type { WebhookDelivery } from '../../src/store/index.js';

const d = (id: number, target: string) => ({ id, target_url: target }) as WebhookDelivery;

describe('onePerTarget: what is left behind', () => {
  test('every candidate taken: nothing left behind, and the rows compare as a plain list', () => {
    const out = onePerTarget([d(1, 'a'), d(2, 'b')], [], 5);
    expect(out.leftBehind).toBe(false);
    expect(out).toEqual([d(1, 'a'), d(2, 'b')]);
  });

  test("a target's second row, or a busy target's row, is left behind", () => {
    expect(onePerTarget([d(1, 'a'), d(2, 'a')], [], 5).leftBehind).toBe(true);
    expect(onePerTarget([d(1, 'a'), d(2, 'b')], ['b'], 5).leftBehind).toBe(true);
  });

  test('the limit reached with candidates to spare, or as many candidates as were asked for: left behind', () => {
    expect(onePerTarget([d(1, 'a'), d(2, 'b'), d(3, 'c')], [], 2).leftBehind).toBe(true);
    const full = Array.from({ length: candidateCount(1, []) }, (_, i) => d(i + 1, `t${i}`));
    expect(onePerTarget(full.slice(0, 1), [], 1).leftBehind).toBe(false);
    expect(onePerTarget(full, [], 1).leftBehind).toBe(true);
  });
});
