/**
 * Webhooks never go to reserved names (RFC 2606, RFC 6761): a platform profile, a webhook_url or a
 * feed callback under `.example`, `.test`, `.invalid`, `.localhost` or example.com/net/org is
 * marked `skipped` without a DNS look-up, a profile fetch or a connection, logged once per target,
 * and shown as such by `usp-server webhooks list`. The injected sender and profile resolver fail
 * the test if they are ever called for such a target.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/operations/index.js';
import type { ProfileResolver, PlatformProfile } from '../../src/security/platform-profiles.js';
import { isReservedName } from '../../src/security/ssrf.js';
import { main as cliMain } from '../../src/server/cli.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { WebhookSender } from '../../src/webhooks/index.js';
import { BUYER, day, demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

describe('isReservedName: the names of RFC 2606 and RFC 6761', () => {
  it('reserved: the four TLDs, names under them, and example.com/net/org with their subdomains, in any case and with a trailing dot', () => {
    for (const h of [
      'agent.example',
      'example',
      'a.b.test',
      'x.invalid',
      'localhost',
      'app.localhost',
      'example.com',
      'hooks.example.org',
      'EXAMPLE.NET',
      'agent.example.',
    ]) {
      expect(isReservedName(h), h).toBe(true);
    }
  });
  it('not reserved: real names that merely contain the words, and IP literals', () => {
    for (const h of [
      'example.io',
      'myexample.com',
      'test.com',
      'examples',
      'platform.acme.dev',
      '127.0.0.1',
      '::1',
      '[::1]',
      '93.184.216.34',
    ]) {
      expect(isReservedName(h), h).toBe(false);
    }
  });
});

const servers: UspServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A server whose sender and profile resolver record every call; `hooks` maps profile URL to webhook_url. */
async function start(hooks: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'usp-reserved-'));
  dirs.push(dir);
  const db = join(dir, 'business.db');
  const sent: string[] = [];
  const resolved: string[] = [];
  const warnings: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const sender: WebhookSender = {
    async send(url) {
      sent.push(url);
      return { status: 200, latencyMs: 1, error: null };
    },
  };
  const resolver: ProfileResolver = {
    async resolve(url) {
      resolved.push(url);
      const webhook_url = hooks[url];
      return {
        url,
        version: '2026-08-20',
        capabilities: {},
        webhook_url,
        keys: [],
        signing_keys: [],
        raw: {},
      } satisfies PlatformProfile;
    },
    invalidate() {},
    refreshForUnknownKey: () => false,
  };
  const server = await createUspServer({
    business: demoBusiness(),
    db,
    sandbox: true,
    clock: new ManualClock(TEST_NOW),
    log: { info() {}, warn: (msg, fields) => void warnings.push({ msg, fields }), error() {} },
    sweepIntervalMs: 0,
    security: { profileResolver: resolver },
    webhooks: { sender, pollMs: 20 },
  });
  servers.push(server);
  const url = await server.listen(0, '127.0.0.1');
  const bookAs = async (profile: string, n: number) => {
    const q = await fetch(`${url}/availability/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'svc_haircut', start_date: day(n), end_date: day(n) }),
    });
    const slot = ((await q.json()) as any).slots[0];
    const r = await fetch(`${url}/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'USP-Agent': `profile="${profile}"` },
      body: JSON.stringify({ service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER }),
    });
    expect(r.status).toBe(201);
    return ((await r.json()) as any).booking;
  };
  const deliveries = () => server.store.read((tx) => tx.webhooks.list({ limit: 100 }));
  const settled = async (n: number) => {
    for (let i = 0; i < 250; i++) {
      const ds = await deliveries();
      if (ds.length >= n && ds.every((d) => d.status !== 'pending')) return ds;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`deliveries did not settle: ${JSON.stringify(await deliveries())}`);
  };
  return { server, db, sent, resolved, warnings, bookAs, settled };
}

describe('deliveries to reserved names are skipped, never attempted', () => {
  it('a platform whose profile is on agent.example: every delivery skipped, the profile never fetched, nothing sent, one log line for the target', async () => {
    const s = await start({});
    await s.bookAs('https://agent.example/profile.json', 2);
    await s.bookAs('https://agent.example/profile.json', 3);
    const ds = await s.settled(2);
    expect(ds.map((d) => d.status)).toEqual(['skipped', 'skipped']);
    expect(ds[0].last_error).toMatch(/agent\.example is a reserved name/);
    expect(ds.every((d) => d.attempts === 1)).toBe(true);
    expect(s.resolved).toEqual([]);
    expect(s.sent).toEqual([]);
    expect(s.warnings.filter((w) => /reserved name/.test(w.msg))).toHaveLength(1);
  });

  it('a real profile whose webhook_url is on hooks.example.com: skipped after the profile is read, nothing sent', async () => {
    const profile = 'https://platform.acme-agents.dev/profile.json';
    const s = await start({ [profile]: 'https://hooks.example.com/usp' });
    await s.bookAs(profile, 2);
    const [d] = await s.settled(1);
    expect(d.status).toBe('skipped');
    expect(d.last_error).toMatch(/hooks\.example\.com is a reserved name/);
    expect(s.sent).toEqual([]);
  });

  it('a real webhook_url is still delivered (the rule is about names, not about every delivery)', async () => {
    const profile = 'https://platform.acme-agents.dev/profile.json';
    const s = await start({ [profile]: 'https://hooks.acme-agents.dev/usp' });
    await s.bookAs(profile, 2);
    const [d] = await s.settled(1);
    expect(d.status).toBe('delivered');
    expect(s.sent).toEqual(['https://hooks.acme-agents.dev/usp']);
  });

  it('usp-server webhooks list shows skipped deliveries, and --status skipped selects them', async () => {
    const s = await start({});
    await s.bookAs('https://agent.example/profile.json', 2);
    const [d] = await s.settled(1);
    await s.server.close();
    servers.length = 0;
    const out: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await cliMain(['webhooks', 'list', '--status', 'skipped', '--db', s.db])).toBe(0);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const text = out.join('\n');
    expect(text).toMatch(new RegExp(`#${d.id}\\s+skipped\\s+booking\\.confirmed`));
    expect(text).toMatch(/agent\.example is a reserved name/);
  });
});
