/**
 * Events on the stateless 2026-07-28 revision reach only the principal they belong to. A platform's
 * webhook resource carries its buyers' names, emails and phones; a client that calls
 * subscriptions/listen with it is authenticated first and may name only its own resource. And the
 * resource's name is keyed by the business's secret, so it cannot be computed from the principal
 * (a key id, a public key's thumbprint). Through the official SDK client over HTTP, outside a sandbox.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createPopKey, mcpProof, withMcpProof } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { hashApiKey } from '../../src/security/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ManualClock } from '../../src/operations/index.js';
import { TEST_NOW } from '../support/time.js';
import { ADMIN_KEY, BUYER, demoBusiness } from '../support/server.js';
import { nyDate, waitFor } from './helpers.js';

const KEY_A = 'platform-a-key-0123456789abcdef';
const KEY_B = 'platform-b-key-0123456789abcdef';

let profiles: ProfileServer;
let server: UspServer;
let url: string;
let A: string;
let B: string;
const clients: Client[] = [];

/** A 2026-07-28 client; `key` and `profile` ride on every HTTP request (Authorization, USP-Agent). */
async function modernClient(auth?: { key: string; profile: string }): Promise<{ client: Client; updates: any[] }> {
  const client = new Client(
    { name: 'listen-test', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const updates: any[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n: any) => void updates.push(n.params));
  const headers: Record<string, string> = auth
    ? { Authorization: `Bearer ${auth.key}`, 'USP-Agent': `profile="${auth.profile}"` }
    : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return { client, updates };
}

beforeAll(async () => {
  profiles = await startProfileServer();
  A = profiles.addProfile('/platform-a.json');
  B = profiles.addProfile('/platform-b.json');
  const business = {
    ...demoBusiness(),
    platform_api_keys: [
      { id: 'plat_a', sha256: hashApiKey(KEY_A) },
      { id: 'plat_b', sha256: hashApiKey(KEY_B) },
    ],
  };
  server = await createUspServer({
    business,
    db: ':memory:',
    sandbox: false,
    clock: new ManualClock(TEST_NOW),
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true },
  });
  url = await server.listen(0, '127.0.0.1');
}, 30_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.close();
  await profiles?.close();
});

let nextSlot = 0;
/** Platform A books a haircut; answers the booking id and A's webhook resource from the result. */
async function bookAsA(client: Client): Promise<{ bookingId: string; resource: string }> {
  const day = nyDate(TEST_NOW, 3);
  const q: any = await client.callTool({
    name: 'usp_availability_query',
    arguments: { service_id: 'svc_haircut', start_date: day, end_date: day, limit: 50 },
  });
  const slot = q.structuredContent.slots[nextSlot++ * 2];
  const b: any = await client.callTool({
    name: 'usp_bookings_create',
    arguments: {
      service_id: 'svc_haircut',
      slot_id: slot.id,
      buyer: { ...BUYER, phone_number: '+15555550123' },
      _meta: { usp: { profile: A, idempotency_key: randomUUID() } },
    },
  });
  expect(b.isError ?? false, JSON.stringify(b.structuredContent?.messages)).toBe(false);
  return { bookingId: b.structuredContent.booking.id, resource: b._meta['dev.usp-server/webhook_resource'] };
}

async function cancelAsA(client: Client, bookingId: string): Promise<void> {
  const r: any = await client.callTool({
    name: 'usp_bookings_cancel',
    arguments: { booking_id: bookingId, _meta: { usp: { profile: A, idempotency_key: randomUUID() } } },
  });
  expect(r.structuredContent.booking.status).toBe('canceled');
}

describe('subscriptions/listen on a webhook resource (2026-07-28 revision)', () => {
  it("the resource's name is not the SHA-256 of the principal: it is keyed by the business's secret", async () => {
    const { client } = await modernClient({ key: KEY_A, profile: A });
    const { resource } = await bookAsA(client);
    expect(resource).toMatch(/^usp:\/\/webhooks\/[A-Za-z0-9_-]{43}$/);
    expect(resource).not.toBe(`usp://webhooks/${createHash('sha256').update('key:plat_a').digest('base64url')}`);
  });

  it('a listener with no credential is refused and hears nothing of the platform it named', async () => {
    const a = await modernClient({ key: KEY_A, profile: A });
    const { bookingId, resource } = await bookAsA(a.client);
    const anon = await modernClient();
    const err: any = await anon.client.listen({ resourceSubscriptions: [resource] }).then(
      (sub) => (void sub.close(), undefined),
      (e: unknown) => e,
    );
    expect(err, 'the anonymous listen must be refused').toBeDefined();
    expect(err.code).toBe(-32600);
    expect(err.data.errors).toEqual([{ field: 'profile', message: 'is required' }]);
    // Naming a profile without proving it is no better outside a sandbox.
    const pretender = new Client(
      { name: 'pretender', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    clients.push(pretender);
    const heard: any[] = [];
    pretender.setNotificationHandler('notifications/resources/updated', (n: any) => void heard.push(n.params));
    await pretender.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { 'USP-Agent': `profile="${A}"` } },
      }),
    );
    const err2: any = await pretender.listen({ resourceSubscriptions: [resource] }).then(
      (sub) => (void sub.close(), undefined),
      (e: unknown) => e,
    );
    expect(err2?.code).toBe(-32006);
    expect(err2.data.code).toBe('authentication_missing');
    await cancelAsA(a.client, bookingId);
    await new Promise((r) => setTimeout(r, 300));
    expect(anon.updates).toEqual([]);
    expect(heard).toEqual([]);
  });

  it("platform B listening with platform A's resource is refused (resource_not_found) and hears nothing; A hears its own events, buyer included", async () => {
    const a = await modernClient({ key: KEY_A, profile: A });
    const { bookingId, resource } = await bookAsA(a.client);
    const b = await modernClient({ key: KEY_B, profile: B });
    const err: any = await b.client.listen({ resourceSubscriptions: [resource] }).then(
      (sub) => (void sub.close(), undefined),
      (e: unknown) => e,
    );
    expect(err, "B's listen on A's resource must be refused").toBeDefined();
    expect(err.code).toBe(-32602);
    expect(err.data.code).toBe('resource_not_found');
    expect(err.message).toContain('resource_not_found: ');

    const mine = await a.client.listen({ resourceSubscriptions: [resource] });
    expect(mine.honoredFilter.resourceSubscriptions).toEqual([resource]);
    await cancelAsA(a.client, bookingId);
    await waitFor(() => a.updates.some((u) => u.uri === resource), 5000, "A hears its own booking's cancel");
    const event = a.updates.find((u) => u.uri === resource)._meta['dev.usp-server/webhook'];
    expect(event).toMatchObject({ event: 'booking.canceled', booking_id: bookingId });
    expect(b.updates).toEqual([]);
    await mine.close();
  });
});

describe("a listener proving its key in the listen's _meta.usp (platform_key_pop)", () => {
  /** Proofs are dated by the server's clock (the fixed test instant). */
  const IAT = Math.floor(TEST_NOW / 1000);
  /**
   * The SDK client's listen() sends no _meta of ours, so its fetch adds `_meta.usp` to the listen's
   * params, as a raw client would: the proof covers the method subscriptions/listen and the params without _meta.
   */
  function popListenFetch(
    key: ReturnType<typeof createPopKey>,
    profile: string,
    aud: string,
    tamper = false,
  ): typeof fetch {
    return async (input, init) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      if (body?.method === 'subscriptions/listen') {
        const { _meta, ...signed } = body.params;
        const proof = mcpProof(key, 'subscriptions/listen', signed, aud, { iat: IAT });
        if (tamper) signed.notifications = { ...signed.notifications, toolsListChanged: true };
        body.params = {
          ...signed,
          _meta: { ..._meta, usp: { profile, authorization: { mechanism: 'platform_key_pop', proof } } },
        };
        return fetch(input, { ...init, body: JSON.stringify(body) });
      }
      return fetch(input, init);
    };
  }

  it("hears its own events; the same proof over other params is refused; the key's thumbprint does not name its resource", async () => {
    const key = createPopKey();
    const aud = `${url}/.well-known/usp`;
    const P = profiles.addProfile('/platform-pop.json');
    const setup = await modernClient();
    const day = nyDate(TEST_NOW, 4);
    const q: any = await setup.client.callTool({
      name: 'usp_availability_query',
      arguments: { service_id: 'svc_haircut', start_date: day, end_date: day },
    });
    const args = {
      service_id: 'svc_haircut',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      _meta: { usp: { profile: P, idempotency_key: randomUUID() } },
    };
    const created: any = await setup.client.callTool({
      name: 'usp_bookings_create',
      arguments: withMcpProof(key, 'usp_bookings_create', args, aud, { iat: IAT }),
    });
    expect(created.isError ?? false, JSON.stringify(created.structuredContent?.messages)).toBe(false);
    const resource = created._meta['dev.usp-server/webhook_resource'] as string;
    expect(resource).not.toBe(`usp://webhooks/${createHash('sha256').update(`jkt:${key.jkt}`).digest('base64url')}`);

    const tampered = new Client(
      { name: 'pop-tampered', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    clients.push(tampered);
    await tampered.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: popListenFetch(key, P, aud, true) }),
    );
    const err: any = await tampered.listen({ resourceSubscriptions: [resource] }).then(
      (sub) => (void sub.close(), undefined),
      (e: unknown) => e,
    );
    expect(err, 'a proof over other params must be refused').toBeDefined();
    expect(err.code).toBe(-32001);
    expect(err.data.code).toBe('pop_proof_invalid');

    const listener = new Client(
      { name: 'pop-listener', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    clients.push(listener);
    const heard: any[] = [];
    listener.setNotificationHandler('notifications/resources/updated', (n: any) => void heard.push(n.params));
    await listener.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: popListenFetch(key, P, aud) }),
    );
    const sub = await listener.listen({ resourceSubscriptions: [resource] });
    const cancelArgs = {
      booking_id: created.structuredContent.booking.id,
      _meta: { usp: { profile: P, idempotency_key: randomUUID() } },
    };
    const canceled: any = await setup.client.callTool({
      name: 'usp_bookings_cancel',
      arguments: withMcpProof(key, 'usp_bookings_cancel', cancelArgs, aud, { iat: IAT }),
    });
    expect(canceled.structuredContent.booking.status).toBe('canceled');
    await waitFor(() => heard.some((u) => u.uri === resource));
    await sub.close();
  });
});
