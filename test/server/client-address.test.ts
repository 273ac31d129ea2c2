/**
 * One client address for the whole server: the socket's peer, or, when that peer is one of the
 * proxies --trust-proxy names, the address that proxy forwarded for. X-Forwarded-For from anyone
 * else is ignored, for rate limits, for the log and for /metrics access; sign-in lockouts count the
 * forwarded client, not the proxy everyone shares. No other code in src/ reads X-Forwarded-For.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/operations/index.js';
import { ProxyListError, clientAddress, trustedProxies } from '../../src/security/index.js';
import { createUspServer, type ServerOptions, type UspServer } from '../../src/server/compose.js';
import { addBusinessUser } from '../../src/operations/index.js';
import { main } from '../../src/server/cli.js';
import { proxyList } from '../../src/server/cli/serve.js';
import { demoBusiness } from '../support/server.js';
import { requestFrom } from '../support/loopback.js';
import { selfSigned } from '../support/tls.js';
import { TEST_NOW } from '../support/time.js';

const peer = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });
const forwarded = (xff: string) => new Request('http://x/', { headers: { 'X-Forwarded-For': xff } });

describe('the trusted proxies are named, and only they are believed', () => {
  test('addresses and CIDRs, IPv4 and IPv6; an IPv4-mapped peer counts as its IPv4 address', () => {
    const p = trustedProxies('10.0.0.0/8, 127.0.0.1,fd00::/8');
    for (const a of ['10.1.2.3', '127.0.0.1', '::ffff:10.9.9.9', 'fd12::1']) expect(p.trusts(a), a).toBe(true);
    for (const a of ['127.0.0.2', '192.0.2.1', '11.0.0.1', 'fe80::1', undefined])
      expect(p.trusts(a), String(a)).toBe(false);
    expect(trustedProxies(true).names).toEqual(['127.0.0.0/8', '::1']);
    expect(trustedProxies(undefined).any).toBe(false);
  });

  test('an entry that is neither an address nor a CIDR is refused, naming it', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.0/8/1', '300.1.1.1'])
      expect(() => trustedProxies(bad)).toThrow(ProxyListError);
  });

  test('from a trusted proxy, X-Forwarded-For is read from the right past the trusted hops; the client cannot name itself a proxy', () => {
    const p = trustedProxies('10.0.0.0/8');
    expect(clientAddress(forwarded('203.0.113.1, 198.51.100.2, 10.0.0.9'), peer('10.0.0.5'), p)).toBe('198.51.100.2');
    // The client wrote "10.0.0.7" itself; the proxy appended the real address after it.
    expect(clientAddress(forwarded('10.0.0.7, 198.51.100.3'), peer('::ffff:10.0.0.5'), p)).toBe('198.51.100.3');
    expect(clientAddress(forwarded('not-an-address, 10.0.0.8'), peer('10.0.0.5'), p)).toBe('10.0.0.8');
    expect(clientAddress(new Request('http://x/'), peer('10.0.0.5'), p)).toBe('10.0.0.5');
  });

  test('from any other peer, X-Forwarded-For is ignored: the peer is the client', () => {
    expect(clientAddress(forwarded('198.51.100.4'), peer('192.0.2.50'), trustedProxies('10.0.0.0/8'))).toBe(
      '192.0.2.50',
    );
    expect(clientAddress(forwarded('198.51.100.4'), peer('192.0.2.50'), trustedProxies(undefined))).toBe('192.0.2.50');
    expect(clientAddress(forwarded('198.51.100.4'), undefined, trustedProxies(true))).toBeUndefined();
  });

  test('no code in src/ but the one resolver reads X-Forwarded-For (names the header as a string)', () => {
    const root = join(import.meta.dirname, '../../src');
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (/\.ts$/.test(e.name) && /['"`]x-forwarded-for['"`]/i.test(readFileSync(path, 'utf8')))
          readers.push(relative(root, path));
      }
    };
    walk(root);
    expect(readers).toEqual(['security/client-address.ts']);
  });
});

describe('--trust-proxy takes the list of proxies', () => {
  test('a list of addresses and CIDRs; the bare flag means a proxy on loopback; a bad entry is a usage error', async () => {
    expect(proxyList({ 'trust-proxy': '10.0.0.0/8,127.0.0.1' } as never)).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(proxyList({ 'trust-proxy': 'loopback' } as never)).toEqual(['loopback']);
    expect(() => proxyList({ 'trust-proxy': 'lb.internal' } as never)).toThrow(/lb\.internal/);
    expect(() => proxyList({ 'trust-proxy': '' } as never)).toThrow(/--trust-proxy/);
    const err: string[] = [];
    const write = console.error;
    console.error = (m: string) => err.push(m);
    try {
      expect(await main(['serve', '--demo', '--trust-proxy', '10.0.0.0/99', '--port', '0'])).toBe(2);
    } finally {
      console.error = write;
    }
    expect(err.join('\n')).toMatch(/10\.0\.0\.0\/99/);
  });
});

describe('X-Forwarded-For from a peer that is not a trusted proxy counts for nothing', () => {
  let server: UspServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (o: Partial<ServerOptions>) => {
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      sweepIntervalMs: 0,
      log: { info() {}, warn() {}, error() {} },
      ...o,
    });
    return server.listen(0, '127.0.0.1');
  };

  test('a direct client naming a fresh forwarded address on every call is held back by its own address, and the log names that address', async () => {
    const tls = selfSigned();
    const warned: Array<Record<string, unknown>> = [];
    // HTTPS served directly, with a proxy range that does not include the test's own address.
    const url = await start({
      tls,
      business: demoBusiness({ public_url: 'https://127.0.0.1:8443' }),
      trustProxy: ['10.0.0.0/8'],
      security: { rateLimits: { public: 2 }, rateClock: () => 0 },
      log: { info() {}, error() {}, warn: (msg, f) => void (msg === 'rate limited' && warned.push(f ?? {})) },
    });
    const statuses: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const r = await requestFrom('127.0.0.1', `${url}/services/svc_haircut`, {
        ca: tls.cert,
        headers: { 'X-Forwarded-For': `198.51.100.${i}`, 'X-Forwarded-Proto': 'https' },
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(warned).toHaveLength(1);
    expect(warned[0].subjects).toEqual(['addr:127.0.0.1']);
  });

  test('/metrics: a loopback peer that is not a trusted proxy stays a loopback client whatever it forwards; a trusted proxy forwarding for the outside does not open it', async () => {
    const url = await start({ trustProxy: ['127.0.0.1'] });
    const port = new URL(url).port;
    // 127.0.0.2 is not the proxy: its header is ignored, and it is a loopback client.
    expect(
      (
        await requestFrom('127.0.0.2', `http://127.0.0.1:${port}/metrics`, {
          headers: { 'X-Forwarded-For': '203.0.113.9' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await requestFrom('127.0.0.1', `http://127.0.0.1:${port}/metrics`, {
          headers: { 'X-Forwarded-For': '203.0.113.9' },
        })
      ).status,
    ).toBe(401);
  });

  test('a plaintext request claiming X-Forwarded-Proto https from a peer that is not a trusted proxy is refused', async () => {
    const url = await start({ trustProxy: ['127.0.0.1'] });
    const port = new URL(url).port;
    const ok = await requestFrom('127.0.0.1', `http://127.0.0.1:${port}/services/svc_haircut`, {
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(ok.status).toBe(200);
    const refused = await requestFrom('127.0.0.2', `http://127.0.0.1:${port}/services/svc_haircut`, {
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).detail_code ?? JSON.parse(refused.body).type).toMatch(/https/);
  });

  test("the dashboard's sign-in lockout counts the client the proxy forwarded for, not the proxy everyone shares", async () => {
    // A clock that stands still: the growing delays never lapse while the test runs.
    const url = await start({
      trustProxy: ['127.0.0.1'],
      adminKeys: ['admin-key-for-tests-0123456789abcdef'],
      clock: new ManualClock(TEST_NOW),
    });
    await addBusinessUser(server!.store, 'owner@salon.example', 'correct horse battery staple', Date.now());
    const via = (client: string, cookie = '') => ({
      'X-Forwarded-For': client,
      'X-Forwarded-Proto': 'https',
      ...(cookie ? { Cookie: cookie } : {}),
    });
    const attempt = async (client: string, email: string) => {
      const page = await fetch(`${url}/admin/login`, { headers: via(client) });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
      const cookie = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const res = await fetch(`${url}/admin/login`, {
        method: 'POST',
        headers: { ...via(client, cookie), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email, password: 'wrong password, long enough' }),
        redirect: 'manual',
      });
      await res.arrayBuffer();
      return res.status;
    };
    const attacker: number[] = [];
    // Ten failures from one address are free, the eleventh imposes a delay: the next attempt waits.
    for (let i = 0; i < 12; i++) attacker.push(await attempt('198.51.100.66', `guess${i}@salon.example`));
    expect(attacker.slice(0, 11).every((s) => s === 401)).toBe(true);
    expect(attacker[11]).toBe(429);
    // Another buyer's business user behind the same proxy is not locked out.
    expect(await attempt('198.51.100.77', 'owner@salon.example')).toBe(401);
  });
});
