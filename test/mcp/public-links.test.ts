/**
 * Links a person can open (issue 36, item 6). With no public URL configured, a link names the
 * address the server listens on: a caller on this machine (stdio, or the in-process transport) can
 * open it, a caller elsewhere (here: through a trusted proxy, from 203.0.113.7) is told it opens only
 * on the business's own machine and is not told to pass it on. With a public URL every link is built
 * on it. The start-up log of `serve` and `mcp` says to set --public-url when none is configured.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createUspServer, type UspServer } from '../../src/index.js';
import { ManualClock, silentLogger } from '../../src/operations/index.js';
import { BUYER, day, demoBusiness, startTestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { startServeCli } from '../support/cli.js';
import { ensureBuilt } from '../support/build.js';
import { connectMcp, meta, type ToolResult } from './helpers.js';

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
const REMOTE = { 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Proto': 'https' };

let server: UspServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A server behind a trusted proxy, and an SDK client whose requests arrive through it from elsewhere. */
async function remoteSession(
  publicUrl?: string,
): Promise<{ call: (tool: string, args: Record<string, unknown>) => Promise<ToolResult>; url: string }> {
  server = await createUspServer({
    business: demoBusiness(publicUrl ? { public_url: publicUrl } : {}),
    db: ':memory:',
    sandbox: true,
    clock: new ManualClock(TEST_NOW),
    log: silentLogger,
    sweepIntervalMs: 0,
    trustProxy: true,
  });
  const url = await server.listen(0, '127.0.0.1');
  client = new Client({ name: 'remote-assistant', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: REMOTE } }));
  const c = client;
  const key = (tool: string) => (tool === 'usp_bookings_create' ? { idempotency_key: randomUUID() } : {});
  return {
    url,
    call: async (tool, args) =>
      (await c.callTool({ name: tool, arguments: { ...args, ...meta(undefined, key(tool)) } })) as ToolResult,
  };
}

async function bookMassage(
  call: (tool: string, args: Record<string, unknown>) => Promise<ToolResult>,
): Promise<ToolResult> {
  const q = await call('usp_availability_query', {
    service_id: 'svc_massage_60',
    start_date: day(3),
    end_date: day(3),
  });
  return call('usp_bookings_create', {
    service_id: 'svc_massage_60',
    slot_id: q.structuredContent.slots[0].id,
    buyer: BUYER,
  });
}

describe('links in a text open where the person is', () => {
  it('no public URL, a caller elsewhere: the pay link is said to open only on the business machine, and not to be passed on', async () => {
    const { url, call } = await remoteSession();
    const t = text(await bookMassage(call));
    expect(t).toContain(`at ${url}/checkout/`);
    expect(t).toContain(`Links above that start with ${url} open only on the business's own machine`);
    expect(t).toContain('call +1 212 555 0147');
    expect(t).not.toContain('Give them that link exactly');
  });

  it('a public URL: every link is built on it, and nothing is said about machines', async () => {
    const { call } = await remoteSession('https://salon.example');
    const t = text(await bookMassage(call));
    expect(t).toMatch(/must pay \$110\.00 at https:\/\/salon\.example\/checkout\//);
    expect(t).toContain('Give them that link exactly');
    expect(t).not.toContain("open only on the business's own machine");
  });

  it('a caller on this machine (the in-process transport) gets the link as it is', async () => {
    const t0 = await startTestServer();
    const conn = await connectMcp('v2', 'memory', t0);
    try {
      const t = text(
        await bookMassage((tool, args) =>
          conn.call(tool, {
            ...args,
            ...meta(undefined, tool === 'usp_bookings_create' ? { idempotency_key: randomUUID() } : {}),
          }),
        ),
      );
      expect(t).toContain('Give them that link exactly');
      expect(t).not.toContain("open only on the business's own machine");
    } finally {
      await conn.close();
      await t0.close();
    }
  });
});

describe('the start-up log says to set --public-url when none is configured', () => {
  it('serve without one warns and names the flag; with one it does not', { timeout: 120_000 }, async () => {
    ensureBuilt();
    const mailDir = mkdtempSync(join(tmpdir(), 'usp-public-links-'));
    const bare = await startServeCli(['--demo', '--db', ':memory:', '--port', '0', '--mail-dir', mailDir]);
    try {
      expect(bare.stderr(), bare.stderr()).toMatch(
        /no public URL configured: links in tool results, pages and mail name http:\/\/127\.0\.0\.1:\d+, which opens only on this machine; give --public-url/,
      );
      // Listening on loopback only (npm start's default), nobody elsewhere reaches the server either:
      // the line informs, it does not warn (npm start prints no warning but the sandbox's).
      const line = bare
        .stderr()
        .split('\n')
        .find((l) => l.includes('no public URL configured'));
      expect(JSON.parse(line ?? '{}').level).toBe('info');
    } finally {
      await bare.stop();
    }
    const set = await startServeCli([
      '--demo',
      '--db',
      ':memory:',
      '--port',
      '0',
      '--mail-dir',
      mailDir,
      '--public-url',
      'https://salon.example',
    ]);
    try {
      expect(set.stderr()).not.toContain('no public URL configured');
    } finally {
      await set.stop();
      rmSync(mailDir, { recursive: true, force: true });
    }
  });

  it('mcp on stdio without one warns too', { timeout: 120_000 }, async () => {
    ensureBuilt();
    const conn = await connectMcp('v2', 'stdio');
    try {
      await conn.call('usp_services_list', meta());
      expect(conn.stderr()).toContain(
        'no public URL configured: links in tool results, pages and mail name http://localhost:8787',
      );
    } finally {
      await conn.close();
    }
  });
});
