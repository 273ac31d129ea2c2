/**
 * The request hash an idempotency record keeps is compared with the hash of a later request under
 * the same key, possibly computed by a later build: its text must never change. The reference below
 * is the canonical form as first written (keys sorted, undefined members left out).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { hashOf } from '../../src/operations/core/call-input.js';

function reference(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  const keys = Object.keys(v as object)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), tie('arr'), tie('obj')),
  arr: fc.array(tie('any'), { maxLength: 4 }),
  obj: fc.dictionary(fc.string({ maxLength: 6 }), tie('any'), { maxKeys: 5 }),
})).any;

describe('the idempotency request hash', () => {
  test('is the SHA-256 of the canonical form it has always been', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(hashOf(v)).toBe(createHash('sha256').update(reference(v)).digest('base64url'));
      }),
      { numRuns: 500 },
    );
    expect(hashOf({ b: 1, a: [true, null, { d: undefined, c: 'x' }] })).toBe(
      createHash('sha256').update('{"a":[true,null,{"c":"x"}],"b":1}').digest('base64url'),
    );
  });
});
