/**
 * Rate limits (spec 10.2.2), public calls included: a call's cost is taken from the buckets of its
 * client address, its key and (when proven) its profile URI at once, so no fresh key or address
 * alone escapes, and naming a platform's profile drains nothing of its bucket; a 31-day
 * availability query costs 31 tokens, reading a service 1. REST answers 429 with Retry-After, MCP the rate_limited JSON-RPC error; both doors share the address's buckets.
 * The limiter's table stays bounded without ever resetting the subjects it is holding back.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../../src/operations/index.js';
import { clientAddressKey, tokenBuckets } from '../../src/security/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { SecurityOptions } from '../../src/server/security-wiring.js';
import { nyDate } from '../mcp/helpers.js';
import { demoBusiness } from '../support/server.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import {
  createPopKey,
  createSigningIdentity,
  dpopHeaders,
  signedHeaders,
  type SigningIdentity,
} from '../../src/client/platform-auth.js';

const first = nyDate(Date.now(), 2);
const last31 = nyDate(Date.now(), 32);

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(o: { sandbox?: boolean; trustProxy?: boolean; security?: SecurityOptions } = {}): Promise<string> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: o.sandbox ?? true,
    log: silentLogger,
    sweepIntervalMs: 0,
    trustProxy: o.trustProxy,
    security: o.security,
  });
  return server.listen(0, '127.0.0.1');
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const query31 = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/availability/query`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ service_id: 'svc_haircut', start_date: first, end_date: last31, limit: 1 }),
  });
const getService = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/services/svc_haircut`, { headers });

describe('public calls are limited per client address, weighted by cost', () => {
  test('with 100 public tokens a minute: three 31-day queries pass, the fourth is 429 with Retry-After, and 7 one-token reads still fit', async () => {
    // A frozen refill clock: nothing refills however slowly a loaded machine answers.
    const url = await start({ security: { rateLimits: { public: 100 }, rateClock: () => 0 } });
    for (let i = 0; i < 3; i++) expect((await query31(url)).status).toBe(200);
    const refused = await query31(url);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body: any = await refused.json();
    expect(body.type).toMatch(/\/rate-limited$/);
    for (let i = 0; i < 7; i++) expect((await getService(url)).status).toBe(200);
    expect((await getService(url)).status).toBe(429);
  });

  test('the demo sandbox defaults stop a flood of 31-day queries from one address (no more than 12,000 tokens a minute)', async () => {
    const url = await start();
    let passed = 0;
    let refusedAt = -1;
    const t0 = Date.now();
    for (let i = 0; i < 1500; i++) {
      const r = await query31(url);
      await r.arrayBuffer();
      if (r.status === 429) {
        refusedAt = i;
        break;
      }
      expect(r.status).toBe(200);
      passed++;
    }
    const seconds = (Date.now() - t0) / 1000;
    expect(refusedAt).toBeGreaterThan(0);
    // 12,000 / 31 = 387 full queries, plus what refills while they run (200 tokens a second): on a
    // loaded machine the run is slower and more refills, so the ceiling follows the time it took.
    expect(passed).toBeGreaterThanOrEqual(380);
    expect(passed).toBeLessThanOrEqual(Math.ceil((12_000 + 200 * seconds) / 31) + 1);
  }, 60_000);
});

describe('per address, per profile and per key together (behind --trust-proxy, the proxy names the address)', () => {
  const via = (address: string, profile: string) => ({
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-For': address,
    'USP-Agent': `profile="${profile}"`,
    ...JSON_HEADERS,
  });
  const hold = async (url: string, address: string, profile: string) => {
    const q = await fetch(`${url}/availability/query`, {
      method: 'POST',
      headers: via(address, profile),
      body: JSON.stringify({ service_id: 'svc_haircut', start_date: first, end_date: first }),
    });
    const slots = ((await q.json()) as any).slots as Array<{ id: string }>;
    return fetch(`${url}/availability/holds`, {
      method: 'POST',
      headers: via(address, profile),
      body: JSON.stringify({ service_id: 'svc_haircut', slot_id: slots[Math.floor(Math.random() * slots.length)].id }),
    });
  };

  test('a profile merely named, from a fresh address per call, is not held back by (and does not drain) that profile bucket', async () => {
    const url = await start({ trustProxy: true, security: { rateLimits: { holds: 2 } } });
    const P = 'https://platform.example/p.json';
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
      expect((await hold(url, address, P)).status).toBe(201);
  });

  test('one address with a fresh profile per call is held back by its address bucket; another address and profile is not', async () => {
    const url = await start({ trustProxy: true, security: { rateLimits: { holds: 2 } } });
    expect((await hold(url, '198.51.100.7', 'https://a.example/p.json')).status).toBe(201);
    expect((await hold(url, '198.51.100.7', 'https://b.example/p.json')).status).toBe(201);
    expect((await hold(url, '198.51.100.7', 'https://c.example/p.json')).status).toBe(429);
    expect((await hold(url, '198.51.100.8', 'https://d.example/p.json')).status).toBe(201);
  });

  test('only the last X-Forwarded-For hop counts: hops the client wrote itself do not make it someone else', async () => {
    const url = await start({ trustProxy: true, security: { rateLimits: { holds: 2 } } });
    expect((await hold(url, '203.0.113.1, 198.51.100.9', 'https://e.example/p.json')).status).toBe(201);
    expect((await hold(url, '203.0.113.2, 198.51.100.9', 'https://f.example/p.json')).status).toBe(201);
    expect((await hold(url, '203.0.113.3, 198.51.100.9', 'https://g.example/p.json')).status).toBe(429);
  });

  test('a refused call takes nothing: the other subjects keep their tokens', async () => {
    const url = await start({ trustProxy: true, security: { rateLimits: { holds: 1 } } });
    expect((await hold(url, '198.51.100.20', 'https://h.example/p.json')).status).toBe(201);
    // Refused by the address bucket; profile i's bucket must stay full.
    expect((await hold(url, '198.51.100.20', 'https://i.example/p.json')).status).toBe(429);
    expect((await hold(url, '198.51.100.21', 'https://i.example/p.json')).status).toBe(201);
  });
});

describe("a profile's bucket counts only callers proven to be that profile", () => {
  let profiles: ProfileServer | undefined;
  afterEach(async () => {
    await profiles?.close();
    profiles = undefined;
  });
  const proxied = (address: string, profile: string) => ({
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-For': address,
    'USP-Agent': `profile="${profile}"`,
    ...JSON_HEADERS,
  });
  const freeSlot = async (url: string, address: string, profile: string) => {
    const q = await fetch(`${url}/availability/query`, {
      method: 'POST',
      headers: proxied(address, profile),
      body: JSON.stringify({ service_id: 'svc_haircut', start_date: first, end_date: first }),
    });
    const slots = ((await q.json()) as any).slots as Array<{ id: string }>;
    return slots[Math.floor(Math.random() * slots.length)].id;
  };
  const popHold = async (url: string, address: string, profile: string) => {
    const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: await freeSlot(url, address, profile) });
    return fetch(`${url}/availability/holds`, {
      method: 'POST',
      headers: { ...proxied(address, profile), ...dpopHeaders(createPopKey(), 'POST', `${url}/availability/holds`) },
      body,
    });
  };
  const signedHold = async (url: string, address: string, profile: string, id: SigningIdentity) => {
    const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: await freeSlot(url, address, profile) });
    const target = `${url}/availability/holds`;
    return fetch(target, {
      method: 'POST',
      headers: signedHeaders(id, 'POST', target, proxied(address, profile), body),
      body,
    });
  };

  test("throwaway keys from other addresses naming a platform's profile do not drain its bucket; the platform's own signed calls are counted there", async () => {
    profiles = await startProfileServer();
    const platform = createSigningIdentity('platform-1');
    const P = profiles.addProfile('/victim-platform.json', { keys: [platform.publicJwk] });
    const url = await start({
      sandbox: false,
      trustProxy: true,
      security: { allowLoopbackProfiles: true, rateLimits: { holds: 2 } },
    });
    // The attacker: a fresh proof-of-possession key and a fresh address for every call, naming P.
    for (const address of ['198.51.100.31', '198.51.100.32', '198.51.100.33'])
      expect((await popHold(url, address, P)).status).toBe(201);
    // The platform itself, signing with a key P publishes, from addresses of its own: P's bucket is whole.
    expect((await signedHold(url, '203.0.113.41', P, platform)).status).toBe(201);
    expect((await signedHold(url, '203.0.113.42', P, platform)).status).toBe(201);
    expect((await signedHold(url, '203.0.113.43', P, platform)).status).toBe(429);
  });
});

describe('the MCP door shares the limits and answers the rate_limited JSON-RPC error', () => {
  test('a REST 31-day query and an MCP one use the address bucket; the next MCP query is -32007 with data.retry_after', async () => {
    const url = await start({ security: { rateLimits: { public: 62 } } });
    expect((await query31(url)).status).toBe(200);
    const client = new Client({ name: 'rate', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      const args = { service_id: 'svc_haircut', start_date: first, end_date: last31, limit: 1 };
      const ok: any = await client.callTool({ name: 'usp_availability_query', arguments: args });
      expect(ok.structuredContent.slots).toBeDefined();
      const err: any = await client.callTool({ name: 'usp_availability_query', arguments: args }).catch((e) => e);
      expect(err.code).toBe(-32007);
      expect(err.data.retry_after).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });
});

describe('the limiter (unit)', () => {
  test('a call costing more than a subject has is refused with the wait until it refills; cheaper calls still pass', () => {
    const l = tokenBuckets({ public: 60 });
    expect(l.take(['addr:a'], 'public', 31, 0)).toBe(0);
    expect(l.take(['addr:a'], 'public', 31, 0)).toBe(2); // 29 left, 2 short at 1 token/s
    expect(l.take(['addr:a'], 'public', 29, 0)).toBe(0);
    expect(l.take(['addr:a'], 'public', 1, 1000)).toBe(0);
  });

  test('filling the table with fresh subjects never resets a subject that is being held back', () => {
    const l = tokenBuckets({ holds: 2 }, { maxEntries: 100 });
    expect(l.take(['addr:victim-of-limit'], 'holds', 1, 0)).toBe(0);
    expect(l.take(['addr:victim-of-limit'], 'holds', 1, 0)).toBe(0);
    for (let i = 0; i < 10_000; i++) {
      l.take([`key:fresh-${i}`], 'holds', 1, 0);
      if (i % 50 === 0) expect(l.take(['addr:victim-of-limit'], 'holds', 1, 0)).toBeGreaterThan(0);
    }
    expect(l.size()).toBeLessThanOrEqual(100);
    expect(l.take(['addr:victim-of-limit'], 'holds', 1, 0)).toBeGreaterThan(0);
  });

  test('client addresses: IPv4-mapped IPv6 unwrapped, IPv6 counted per /64', () => {
    expect(clientAddressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
  });
});
