/**
 * Issue 40 item 3, "responses serialised once": what the core shares between answers (a query's
 * presented slots in the availability cache, a service with its availability hint, an operation's
 * `usp` envelope) is frozen all the way down, and the REST door makes its JSON text once. The second
 * identical answer serialises only what is new in it, and its bytes are the same as before.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { day, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

/** The characters JSON.stringify produced while `fn` ran (in this process: the server's answer included). */
async function stringified<T>(fn: () => Promise<T>): Promise<{ result: T; chars: number }> {
  const original = JSON.stringify;
  let chars = 0;
  const spy = vi.spyOn(JSON, 'stringify').mockImplementation(((...args: Parameters<typeof JSON.stringify>) => {
    const out = original(...args);
    chars += out?.length ?? 0;
    return out;
  }) as typeof JSON.stringify);
  try {
    return { result: await fn(), chars };
  } finally {
    spy.mockRestore();
  }
}

test.each([
  [
    'POST /availability/query',
    () => t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) }),
  ],
  ['GET /services/{id}', () => t.call('GET', '/services/svc_haircut')],
])('%s: the second identical answer reuses the text of what it shares', async (_name, ask) => {
  const first = await ask();
  expect(first.status).toBe(200);
  const { result: second, chars } = await stringified(ask);
  expect(second.status).toBe(200);
  const bytes = JSON.stringify(second.body).length;
  // Same answer, same bytes as JSON.stringify gives.
  expect(second.body).toEqual(first.body);
  // The request's own body and a few new members are made again; the shared bulk is not (before:
  // the whole answer, once more).
  expect(chars).toBeLessThan(bytes / 4);
});

test('the text is JSON.stringify’s, member order and left-out members included', async () => {
  const { jsonText } = await import('../../src/web/index.js');
  const { deepFreeze } = await import('../../src/domain/index.js');
  const shared = deepFreeze({ b: 1, a: [1, 'x', null, { z: true }], u: undefined, d: 'é"\\' });
  const values: unknown[] = [
    {
      x: shared,
      y: [shared, undefined, () => 1],
      when: new Date(0),
      n: null,
      nested: { deep: { deeper: { deepest: [shared] } } },
    },
    shared,
    [1, 2],
    'text',
    7,
    null,
  ];
  for (const v of values) {
    expect(jsonText(v)).toBe(JSON.stringify(v));
    // Once kept, the same text again.
    expect(jsonText(v)).toBe(JSON.stringify(v));
  }
});
