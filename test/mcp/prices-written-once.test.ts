/**
 * Issue 40 item 3, what the MCP door rebuilt on every call: each price a tool's text names went to
 * ICU twice (Intl's `resolvedOptions()`, which builds a fresh object every time, for the currency's
 * digits, then `format`), some 15-20 µs a price, and the service card and availability text name
 * many. A price written once is kept; the second identical call asks ICU nothing, and says the same.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, testDay, type McpConn } from './helpers.js';

let t: TestServer;
let mcp: McpConn;

beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp('v2', 'http', t.url);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

/** Calls to Intl.NumberFormat's `format` (a getter) and `resolvedOptions` while `fn` runs (the server is in this process). */
async function icuCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const proto = Intl.NumberFormat.prototype;
  // `format` is an accessor on the prototype (it returns the bound function): its getter is counted.
  const format = vi.spyOn(proto as unknown as { format: unknown }, 'format', 'get');
  const resolved = vi.spyOn(proto, 'resolvedOptions');
  try {
    const result = await fn();
    return { result, calls: format.mock.calls.length + resolved.mock.calls.length };
  } finally {
    format.mockRestore();
    resolved.mockRestore();
  }
}

test.each([
  ['usp_services_get', { service_id: 'svc_haircut' }],
  ['usp_availability_query', { service_id: 'svc_haircut', start_date: testDay(1), end_date: testDay(1) }],
])('%s: the second identical call writes its prices without asking ICU again', async (tool, args) => {
  const first = await mcp.call(tool, { ...args, ...meta() });
  expect(first.isError).toBeFalsy();
  // Prices are named in the text or in what the tool's view shows beside it.
  expect(JSON.stringify([first.content, first._meta])).toMatch(/\$\d+\.\d\d/);
  const { result: second, calls } = await icuCalls(() => mcp.call(tool, { ...args, ...meta() }));
  expect(second.content).toEqual(first.content);
  expect(second.structuredContent).toEqual(first.structuredContent);
  expect(calls).toBe(0);
});
