/**
 * The resource server at the edge: an access token is verified once per call, in one place, and
 * the pipeline gets a caller from it (at most 2 store round trips before the handler, where there
 * were 7 to 10); the authentication policy is composed in phases and frozen, so the OAuth door
 * writes nothing into it after start; and a token fixes the platform profile a call acts for
 * (spec 10.1.6): naming none or the bound one acts for it, the server's own generic-host profile
 * is accepted as naming none, and any other is refused with what to do.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { BUYER } from '../support/server.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { createSigningIdentity } from '../../src/client/platform-auth.js';
import {
  REDIRECT,
  buyerToken,
  firstSlotAt,
  mcpCallAt,
  register,
  registerSigned,
  startOAuthServer,
  type OAuthTestServer,
} from './support.js';

let t: OAuthTestServer;
let profiles: ProfileServer;
beforeAll(async () => {
  t = await startOAuthServer();
  profiles = await startProfileServer();
}, 30_000);
afterAll(async () => {
  await t?.close();
  await profiles?.close();
});

/** Count the store's round trips (each read and each transaction) from `start()` on. */
function countRoundTrips(store: Store): { start(): void; count(): number; restore(): void } {
  const read = store.read.bind(store);
  const transaction = store.transaction.bind(store);
  let counting = false;
  let n = 0;
  store.read = ((fn: never) => ((n += counting ? 1 : 0), read(fn))) as Store['read'];
  store.transaction = ((fn: never) => ((n += counting ? 1 : 0), transaction(fn))) as Store['transaction'];
  return {
    start: () => {
      counting = true;
      n = 0;
    },
    count: () => n,
    restore: () => {
      store.read = read;
      store.transaction = transaction;
    },
  };
}

describe('an access token is verified once: the pipeline gets a caller in at most 2 store round trips', () => {
  test('an OAuth-authenticated MCP tool call (a hold) costs at most 2 store round trips before its handler’s one transaction', async () => {
    const client = await register(t.url);
    const token = (await buyerToken(t, client, { email: 'counted@example.com' })).access_token;
    const slot = await firstSlotAt(t.url, 3);
    const trips = countRoundTrips(t.server.store);
    try {
      // Twice: the first contact of a principal costs no more than any later call.
      for (const s of [slot, await firstSlotAt(t.url, 4)]) {
        const r = await mcpCallAt(
          t.url,
          'usp_availability_hold',
          { service_id: 'svc_haircut', slot_id: s },
          { authorization: `Bearer ${token}` },
          trips.start,
        );
        expect(r.body.result.structuredContent.hold.id).toMatch(/^hld_/);
        // The hold's handler runs in one transaction; everything else came before it.
        expect(trips.count() - 1).toBeLessThanOrEqual(2);
      }
    } finally {
      trips.restore();
    }
  });

  test('the authentication policy is frozen once composed, with the authorization server’s verifier and oauth2_bearer in it', () => {
    // The policy is the business's, carried by its scope with every call (src/operations/core/scope.ts).
    const policy = t.server.scope.authPolicy as { accepted: readonly string[]; verifyAccessToken?: unknown };
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.accepted)).toBe(true);
    expect(policy.accepted).toContain('oauth2_bearer');
    expect(typeof policy.verifyAccessToken).toBe('function');
  });
});

describe('a token fixes the platform profile: the bound one or the generic-host profile is accepted, another is refused with what to do', () => {
  test('a generic host that sends the server’s own generic-host profile books, on a server that takes no http profile URL', async () => {
    const strict = await startOAuthServer({ allowLoopbackProfiles: false });
    try {
      const client = await register(strict.url);
      const token = (await buyerToken(strict, client, { email: 'generic@example.com' })).access_token;
      const generic = `${strict.url}/platforms/generic-mcp-host.json`;
      const r = await mcpCallAt(
        strict.url,
        'usp_bookings_create',
        {
          service_id: 'svc_haircut',
          slot_id: await firstSlotAt(strict.url, 3),
          buyer: BUYER,
          _meta: { usp: { profile: generic } },
        },
        { authorization: `Bearer ${token}` },
      );
      expect(r.body.error).toBeUndefined();
      const booking = r.body.result.structuredContent.booking;
      expect(booking.status).toBe('confirmed');
      expect((await strict.server.store.read((tx) => tx.bookings.get(booking.id)))?.priv.profile).toBe(generic);
    } finally {
      await strict.close();
    }
  });

  test('a client with its own profile that sends the generic-host profile acts for its own; naming a third profile is refused, saying to leave it out', async () => {
    // A registration naming a profile proves control of it with a key the profile publishes.
    const signer = createSigningIdentity('own-platform-key');
    const own = profiles.addProfile('/own-platform.json', { keys: [signer.publicJwk] });
    const registered = await registerSigned(
      t.url,
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        client_name: 'Own Platform',
        grant_types: ['authorization_code', 'refresh_token'],
        usp_platform_profile: own,
      },
      signer,
    );
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string };
    const auth = {
      authorization: `Bearer ${(await buyerToken(t, client, { email: 'own-profile@example.com' })).access_token}`,
    };
    const generic = `${t.url}/platforms/generic-mcp-host.json`;
    const r = await mcpCallAt(
      t.url,
      'usp_bookings_create',
      {
        service_id: 'svc_haircut',
        slot_id: await firstSlotAt(t.url, 5),
        buyer: BUYER,
        _meta: { usp: { profile: generic } },
      },
      auth,
    );
    expect(r.body.error).toBeUndefined();
    const booking = r.body.result.structuredContent.booking;
    expect((await t.server.store.read((tx) => tx.bookings.get(booking.id)))?.priv.profile).toBe(own);
    // The bound one, named, is the same call; none named too.
    const named = await mcpCallAt(
      t.url,
      'usp_bookings_get',
      { booking_id: booking.id, _meta: { usp: { profile: own } } },
      auth,
    );
    expect(named.body.result.structuredContent.booking.id).toBe(booking.id);
    const other = await mcpCallAt(
      t.url,
      'usp_bookings_get',
      { booking_id: booking.id, _meta: { usp: { profile: 'https://someone-else.example/profile.json' } } },
      auth,
    );
    expect(other.body.error.code).toBe(-32006);
    expect(other.body.error.data.code).toBe('profile_binding_mismatch');
    expect(other.body.error.message).toContain('leave the profile out');
    expect(other.body.error.message).toContain(own);
  });
});
