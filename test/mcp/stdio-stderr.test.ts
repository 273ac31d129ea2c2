/**
 * The stdio door answers whatever its host does with stderr. Each call writes one log line there;
 * written synchronously, a host that reads stderr slowly (or not at all, or only when it has time)
 * made every call wait on that read, and once the pipe was full the server stopped answering
 * altogether. Log lines now leave through a bounded buffer: the call is answered first, the line
 * follows, and past the bound lines are dropped rather than the calls.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO_ROOT, ensureBuilt } from '../support/build.js';
import { inheritedEnv } from '../support/cli.js';
import { PLATFORM } from '../support/server.js';
import { STDIO_ARGS } from './helpers.js';

let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  ensureBuilt();
  // stderr is piped and never read: its pipe fills after a few hundred log lines.
  transport = new StdioClientTransport({
    command: process.execPath,
    args: STDIO_ARGS,
    cwd: REPO_ROOT,
    env: inheritedEnv(),
    stderr: 'pipe',
  });
  client = new Client({ name: 'stderr-never-read', version: '1.0.0' });
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
});

test('calls keep being answered while nobody reads the server stderr', async () => {
  const args = { service_id: 'svc_haircut', _meta: { usp: { profile: PLATFORM } } };
  // About 250 bytes of log a call: 1,500 calls write several times what a pipe (and the SDK's
  // stream in front of it) holds.
  const calls = 1_500;
  const deadline = Date.now() + 40_000;
  let answered = 0;
  for (let i = 0; i < calls; i++) {
    const left = deadline - Date.now();
    const r = await Promise.race([
      client.callTool({ name: 'usp_services_get', arguments: args }),
      new Promise<'stalled'>((resolve) => setTimeout(() => resolve('stalled'), Math.max(1, Math.min(left, 5_000)))),
    ]);
    if (r === 'stalled') break;
    expect(r.isError).toBeFalsy();
    answered++;
  }
  expect(answered).toBe(calls);
}, 60_000);
