/**
 * Issue 40 item 3, what the MCP door recomputed on every call: each answer to a principal names its
 * webhook resource (`_meta["dev.usp-server/webhook_resource"]`), an HMAC of the principal under the
 * business's key, and the HMAC was computed anew every time (5% of the door's time on
 * usp_services_get). A principal's name is now computed once; the second call computes no HMAC,
 * and names the same resource.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';

const hmacs = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    createHmac: (...args: Parameters<typeof real.createHmac>) => {
      hmacs.count++;
      return real.createHmac(...args);
    },
  };
});

const { startTestServer } = await import('../support/server.js');
const { connectMcp, meta } = await import('./helpers.js');

let t: Awaited<ReturnType<typeof startTestServer>>;
let mcp: Awaited<ReturnType<typeof connectMcp>>;

beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp('v2', 'http', t.url);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

test("the second call of a principal computes no HMAC for its webhook resource's name", async () => {
  const first = await mcp.call('usp_services_get', { service_id: 'svc_haircut', ...meta() });
  const named = first._meta?.['dev.usp-server/webhook_resource'];
  expect(named).toMatch(/^usp:\/\/webhooks\/[\w-]{43}$/);
  hmacs.count = 0;
  const second = await mcp.call('usp_services_get', { service_id: 'svc_haircut', ...meta() });
  expect(second._meta?.['dev.usp-server/webhook_resource']).toBe(named);
  expect(hmacs.count).toBe(0);
});
