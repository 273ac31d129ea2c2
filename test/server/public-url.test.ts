/**
 * The public origin the server tells platforms and buyers about (profile endpoints, the checkout
 * link a model hands the person) is one they can reach: --public-url, else the business file's
 * settings.public_url, else the address the server actually listens on. Spawns the built CLI
 * (`npm run build` first).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServeCli, type RunningCli } from '../support/cli.js';
import { BUYER, PLATFORM } from '../support/server.js';

/** A date three days from now in New York, inside the demo's booking window. */
function inThreeDays(): string {
  return new Date(Date.now() + 3 * 86_400_000).toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'USP-Agent': `profile="${PLATFORM}"`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Book the demo's paid massage: its answer carries the checkout link (actions[0].continue_url). */
async function paidBookingContinueUrl(base: string): Promise<string> {
  const q = await post(base, '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: inThreeDays(),
    end_date: inThreeDays(),
  });
  expect(q.status).toBe(200);
  const slot = q.body.slots[0];
  const b = await post(
    base,
    '/bookings',
    { service_id: 'svc_massage_60', slot_id: slot.id, buyer: BUYER },
    { 'Idempotency-Key': crypto.randomUUID() },
  );
  expect(b.status).toBe(201);
  return b.body.booking.actions[0].continue_url;
}

function restAndMcpEndpoints(profile: any): string[] {
  return profile.usp.services['dev.usp-protocol.services'].map((b: { endpoint: string }) => b.endpoint);
}

describe('the public origin is one a platform and a buyer can reach', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'usp-public-url-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the demo on a random port advertises that port: profile endpoints and continue_url', async () => {
    const s = await startServeCli(['--demo', '--port', '0', '--db', ':memory:']);
    try {
      const port = new URL(s.url).port;
      expect(port).not.toBe('8787');
      const profile = await (await fetch(`${s.url}/.well-known/usp`)).json();
      expect(restAndMcpEndpoints(profile)).toEqual([s.url, `${s.url}/mcp`]);
      const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as { servers: unknown };
      expect(openapi.servers).toEqual([{ url: s.url }]);
      const link = await paidBookingContinueUrl(s.url);
      expect(link.startsWith(`${s.url}/checkout/`)).toBe(true);
      // The link is live: the checkout page answers on it.
      expect((await fetch(link, { headers: { Accept: 'text/html' } })).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('--public-url wins over the listening address and over the business file', async () => {
    const file = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
    file.settings = { public_url: 'https://from-the-file.example' };
    const config = join(dir, 'business.json');
    writeFileSync(config, JSON.stringify(file));

    let s: RunningCli = await startServeCli(['--config', config, '--sandbox', '--port', '0', '--db', ':memory:']);
    try {
      expect(restAndMcpEndpoints(await (await fetch(`${s.url}/.well-known/usp`)).json())).toEqual([
        'https://from-the-file.example',
        'https://from-the-file.example/mcp',
      ]);
      expect((await paidBookingContinueUrl(s.url)).startsWith('https://from-the-file.example/checkout/')).toBe(true);
    } finally {
      await s.stop();
    }

    s = await startServeCli([
      '--config',
      config,
      '--sandbox',
      '--port',
      '0',
      '--db',
      ':memory:',
      '--public-url',
      'https://salon.example/',
    ]);
    try {
      expect(restAndMcpEndpoints(await (await fetch(`${s.url}/.well-known/usp`)).json())).toEqual([
        'https://salon.example',
        'https://salon.example/mcp',
      ]);
      expect((await paidBookingContinueUrl(s.url)).startsWith('https://salon.example/checkout/')).toBe(true);
    } finally {
      await s.stop();
    }
  });

  it('outside sandbox and loopback, the server refuses to start without an https public URL', async () => {
    const base = [
      'serve',
      '--demo',
      '--require-auth',
      '--host',
      '0.0.0.0',
      '--trust-proxy',
      '--port',
      '0',
      '--db',
      ':memory:',
    ];
    const none = await runCli(base);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim().split('\n')).toEqual([
      'usp-server: refusing to start on 0.0.0.0 without an https public URL: give --public-url https://<the address platforms and buyers reach>',
    ]);
    const plain = await runCli([...base, '--public-url', 'http://salon.example']);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/without an https public URL \(got http:\/\/salon\.example\)/);

    const s = await startServeCli([...base.slice(1), '--public-url', 'https://salon.example']);
    try {
      const port = new URL(s.url).port;
      const profile = await (
        await fetch(`http://127.0.0.1:${port}/.well-known/usp`, {
          headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'salon.example' },
        })
      ).json();
      expect(restAndMcpEndpoints(profile)).toEqual(['https://salon.example', 'https://salon.example/mcp']);
    } finally {
      await s.stop();
    }
  });

  it('on loopback, authentication required or not, the http listening address is the public origin', async () => {
    const s = await startServeCli(['--demo', '--require-auth', '--port', '0', '--db', ':memory:']);
    try {
      expect(restAndMcpEndpoints(await (await fetch(`${s.url}/.well-known/usp`)).json())).toEqual([
        s.url,
        `${s.url}/mcp`,
      ]);
    } finally {
      await s.stop();
    }
  });
});
