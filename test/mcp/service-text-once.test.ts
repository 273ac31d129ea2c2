/**
 * Issue 40 item 3, what the MCP door rewrote on every call: a service's terms (its prices, windows
 * and fees as facts) and, from them, its words and card. Both are now made once per business
 * snapshot: the second usp_services_get of a service writes no card and computes no terms, and
 * answers the same text. The terms are shared, so they are frozen.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';

const cards = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/bindings/mcp/service-card.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/bindings/mcp/service-card.js')>();
  return {
    ...real,
    serviceCard: (...args: Parameters<typeof real.serviceCard>) => {
      cards.count++;
      return real.serviceCard(...args);
    },
  };
});

const { startTestServer } = await import('../support/server.js');
const { connectMcp, meta } = await import('./helpers.js');
const { serviceTerms } = await import('../../src/operations/terms.js');

let t: Awaited<ReturnType<typeof startTestServer>>;
let mcp: Awaited<ReturnType<typeof connectMcp>>;

beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp('v2', 'memory', t);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

test('the second usp_services_get of a service writes no card and answers the same text', async () => {
  const first = await mcp.call('usp_services_get', { service_id: 'svc_haircut', ...meta() });
  expect(cards.count).toBe(1);
  const second = await mcp.call('usp_services_get', { service_id: 'svc_haircut', ...meta() });
  expect(cards.count).toBe(1);
  expect(second.content).toEqual(first.content);
  expect(JSON.stringify(first.content)).toContain('Haircut');
});

test("a snapshot's service terms are computed once, frozen, and null for an unknown service", () => {
  const biz = t.server.scope.business!.current();
  const terms = serviceTerms(biz, 'svc_haircut');
  expect(terms).not.toBeNull();
  expect(serviceTerms(biz, 'svc_haircut')).toBe(terms);
  expect(Object.isFrozen(terms)).toBe(true);
  expect(Object.isFrozen(terms?.cancel)).toBe(true);
  expect(serviceTerms(biz, 'svc_nope')).toBeNull();
});
