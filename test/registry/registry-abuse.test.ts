/**
 * What a registrant cannot make the registry do. A profile naming another business's REST endpoint
 * does not get that business's catalog indexed under the registrant's name (the endpoint's own
 * profile must be the one registered); one registration causes a bounded number of fetches however
 * long the catalog says it is; and registrations are limited per registering host and for the
 * registry as a whole, not only per address. The registry's fetches go to a fake here (no network).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_FETCHES_PER_INDEX, silentLogger } from '../../src/operations/index.js';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';

const ADMIN = 'registry-admin-key-for-tests-0123456789';

const profileDoc = (endpoint: string) => ({
  usp: {
    version: '2026-08-20',
    capabilities: { 'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }] },
    services: { 'dev.usp-protocol.services': [{ version: '2026-08-20', transport: 'rest', endpoint }] },
  },
});
const service = (id: string) => ({
  id,
  name: `Service ${id}`,
  type: 'appointment',
  channel: { type: 'virtual' },
  status: 'active',
  pricing: { model: 'quote' },
});
const registration = (profileUrl: string) => ({
  profile_url: profileUrl,
  deployment_mode: 'standalone',
  name: 'Some Business',
  verticals: ['appointment'],
  categories: ['x'],
  timezone: 'UTC',
});

let registry: RegistryServer | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

/** A registry whose outbound fetches are answered from `docs` (a function of the URL); every URL asked is recorded. */
async function start(
  docs: (url: string) => Record<string, unknown> | undefined,
  o: { sandbox?: boolean; rateLimits?: Record<string, number> } = {},
) {
  const asked: string[] = [];
  registry = await createRegistryServer({
    db: ':memory:',
    sandbox: o.sandbox ?? false,
    adminKeys: [ADMIN],
    log: silentLogger,
    reindexPollMs: 0,
    sweepIntervalMs: 0,
    trustProxy: true,
    security: o.rateLimits ? { rateLimits: o.rateLimits, rateClock: () => 0 } : { rateLimits: false },
    postJson: async () => ({ status: 404, body: {} }) as never,
    fetchJson: async (url) => {
      asked.push(url);
      const doc = docs(url);
      if (!doc) throw Object.assign(new Error(`nothing at ${url}`), { code: 'profile_unreachable' });
      return doc;
    },
  });
  const url = await registry.listen(0, '127.0.0.1');
  const post = async (body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${ADMIN}` }) => {
    const res = await fetch(`${url}/registry/businesses`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Forwarded-Proto': 'https',
        'USP-Agent': 'profile="https://ops.example/profile"',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return { asked, post };
}

describe("a registrant whose profile names another business's REST endpoint", () => {
  test("is refused with endpoint_profile_mismatch, and the other business's catalog is never read", async () => {
    const victim = 'https://victim.example';
    const { asked, post } = await start((url) => {
      if (url === 'https://attacker.example/.well-known/usp') return profileDoc(victim);
      if (url === `${victim}/.well-known/usp`) return { ...profileDoc(victim), keys: [{ kty: 'EC', kid: 'victim' }] };
      if (url.startsWith(`${victim}/services`))
        return { items: [{ state: 'updated', data: service('svc_victim') }], pagination: { has_more: false } };
      return undefined;
    });
    const res = await post(registration('https://attacker.example/.well-known/usp'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('endpoint_profile_mismatch');
    expect(asked.some((u) => u.startsWith(`${victim}/services`))).toBe(false);
    expect(
      await registry!.store.read((tx) => tx.registry.byProfileUrl('https://attacker.example/.well-known/usp')),
    ).toBeNull();
  });

  test('a profile served at its endpoint itself, or an identical copy elsewhere, is registered', async () => {
    const biz = 'https://biz.example';
    const { post } = await start((url) => {
      if (url === `${biz}/.well-known/usp` || url === 'https://cdn.example/biz/.well-known/usp') return profileDoc(biz);
      if (url.startsWith(`${biz}/services/feed`))
        return { items: [{ state: 'updated', data: service('svc_1') }], pagination: { has_more: false } };
      if (url.startsWith(`${biz}/services/`)) return { service: service('svc_1') };
      return undefined;
    });
    expect((await post(registration(`${biz}/.well-known/usp`))).status).toBe(201);
    expect((await post(registration('https://cdn.example/biz/.well-known/usp'))).status).toBe(201);
  });
});

describe('one registration causes a bounded number of fetches', () => {
  test(`a catalog that never ends and names thousands of services costs at most ${MAX_FETCHES_PER_INDEX} fetches`, async () => {
    const biz = 'https://endless.example';
    let page = 0;
    const { asked, post } = await start((url) => {
      if (url === `${biz}/.well-known/usp`) return profileDoc(biz);
      if (url.startsWith(`${biz}/services/feed`)) {
        const n = page++;
        return {
          items: Array.from({ length: 500 }, (_, i) => ({ state: 'updated', data: service(`svc_${n}_${i}`) })),
          pagination: { has_more: true, next_cursor: `c${n}` },
        };
      }
      if (url.startsWith(`${biz}/services/`)) return { service: {} };
      return undefined;
    });
    expect((await post(registration(`${biz}/.well-known/usp`))).status).toBe(201);
    expect(asked.length).toBeLessThanOrEqual(MAX_FETCHES_PER_INDEX);
  });
});

describe('registry spam is limited per registering host and in total, not only per address', () => {
  const profileHost = (host: string) => `https://${host}/.well-known/usp`;
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  test('registrations naming one host from a fresh address each are held back by that host; other hosts by the registry total', async () => {
    // A sandbox registry: the spam needs no proof to be counted (it is refused later, for want of one).
    const { post } = await start(() => undefined, {
      sandbox: true,
      rateLimits: { bookings: 100, registrations: 3, registrations_total: 5 },
    });
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++)
      statuses.push((await post(registration(profileHost('victim-host.example')), from(`198.51.100.${i}`))).status);
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    const others: number[] = [];
    for (let i = 1; i <= 3; i++)
      others.push((await post(registration(profileHost(`spam-${i}.example`)), from(`203.0.113.${i}`))).status);
    // Three calls on victim-host and two here fill the registry's five; the sixth is refused whatever its host.
    expect(others.slice(0, 2).every((s) => s !== 429)).toBe(true);
    expect(others[2]).toBe(429);
  });
});
