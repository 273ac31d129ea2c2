/**
 * Registration (spec 6.1, 6.5, 6.6) against a real business in another process: the registrant
 * proves control by signing with a key its profile publishes, the profile and catalog are fetched
 * through the outbound rules, the catalog is indexed, and the index follows the business's changes.
 * Bad input gets the spec's codes and indexes nothing.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningIdentity, signedHeaders, type SigningIdentity } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { specErrors, validateRestResponse } from '../support/spec.js';

const ADMIN = 'registry-admin-key-for-tests-0123456789';

describe('registration with a business in another process (spec 6.1, 6.3, 6.5, 6.6)', () => {
  let registry: RegistryServer;
  let registryUrl: string;
  let business: RunningCli;
  let profiles: ProfileServer;
  let owner: SigningIdentity;
  let dir: string;
  let port: number;
  let profileUrl: string;

  const businessFile = (amount: number) => {
    const def = JSON.parse(readFileSync(join(import.meta.dirname, '../../src/server/demo-business.json'), 'utf8'));
    for (const s of def.services) if (s.id === 'svc_bridal_trial') s.pricing.amount = amount;
    const path = join(dir, 'business.json');
    writeFileSync(path, JSON.stringify(def));
    return path;
  };
  const startBusiness = async (amount: number) => {
    business = await startServeCli(
      [
        '--config',
        businessFile(amount),
        '--port',
        String(port),
        '--db',
        ':memory:',
        '--sandbox',
        '--signing-key',
        join(dir, 'key.pem'),
        '--signing-kid',
        'biz-key-1',
      ],
      { timeoutMs: 20_000 },
    );
    port = Number(new URL(business.url).port);
  };
  const profileDoc = (restEndpoint: string, extraUsp: Record<string, unknown> = {}) => ({
    usp: {
      version: '2026-08-20',
      capabilities: { 'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }] },
      services: { 'dev.usp-protocol.services': [{ version: '2026-08-20', transport: 'rest', endpoint: restEndpoint }] },
      ...extraUsp,
    },
  });
  const registration = (url: string, extra: Record<string, unknown> = {}) => ({
    profile_url: url,
    deployment_mode: 'standalone',
    name: 'Maple & Pine Salon and Studio',
    verticals: ['appointment'],
    categories: ['hair', 'beauty'],
    location: { address: '214 Hudson Street, New York, NY 10013', coordinates: { lat: 40.7251, lng: -74.0079 } },
    timezone: 'America/New_York',
    ...extra,
  });
  /** A request signed by `id`, presenting `as` as its profile. */
  const signed = async (method: string, path: string, body: unknown, id: SigningIdentity, as: string) => {
    const url = `${registryUrl}${path}`;
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = signedHeaders(
      id,
      method,
      url,
      { 'USP-Agent': `profile="${as}"`, ...(text ? { 'Content-Type': 'application/json' } : {}) },
      text,
    );
    const res = await fetch(url, { method, headers, body: text });
    return { status: res.status, body: (res.status === 204 ? {} : await res.json()) as Record<string, any> };
  };
  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${registryUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${ADMIN}`,
        'USP-Agent': 'profile="https://ops.example/profile"',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const search = async (body: unknown) => {
    const res = await fetch(`${registryUrl}/registry/search_services`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const indexedServices = async () =>
    (await search({ location: { coordinates: { lat: 40.7251, lng: -74.0079 }, radius_km: 50 } })).services as Array<
      Record<string, any>
    >;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'usp-registry-'));
    port = 0;
    // The business's own signing key, known to the test so it can sign the registration as the
    // business: the registry indexes a REST endpoint only under that endpoint's own profile.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const jwk = privateKey.export({ format: 'jwk' });
    owner = {
      ...createSigningIdentity('biz-key-1'),
      privateKey,
      publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: 'biz-key-1' },
    };
    await startBusiness(18000);
    profiles = await startProfileServer();
    profileUrl = `${business.url}/.well-known/usp`;
    registry = await createRegistryServer({
      db: ':memory:',
      sandbox: false,
      adminKeys: [ADMIN],
      log: silentLogger,
      reindexPollMs: 0,
      reindexIntervalMs: 1000,
      sweepIntervalMs: 0,
      maxFailures: 2,
      security: { allowLoopbackProfiles: true, rateLimits: false },
    });
    registryUrl = await registry.listen(0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await registry?.close();
    await business?.stop();
    await profiles?.close();
  });

  it('a business that signs with a key its profile publishes is registered, answering 201 with a valid RegistryEntry', async () => {
    const { status, body } = await signed('POST', '/registry/businesses', registration(profileUrl), owner, profileUrl);
    expect(status).toBe(201);
    expect(specErrors(() => validateRestResponse('POST', '/registry/businesses', 201, body))).toEqual([]);
    expect(body.registration).toMatchObject({
      profile_url: profileUrl,
      status: 'active',
      deployment_mode: 'standalone',
    });
    expect(body.registration.id).toMatch(/^reg_/);
  });

  it('then a search finds its services, with their availability hint passed through', async () => {
    const services = await indexedServices();
    const bridal = services.find((s) => s.service_id === 'svc_bridal_trial');
    expect(bridal).toMatchObject({
      pricing: { amount: 18000, currency: 'USD' },
      business: { profile_url: profileUrl },
    });
    expect(bridal!.last_indexed_at).toMatch(/Z$/);
    expect(services.some((s) => s.availability_hint)).toBe(true);
    const body = await search({ query: 'bridal' });
    expect(specErrors(() => validateRestResponse('POST', '/registry/search_services', 200, body))).toEqual([]);
  });

  it('a price change at the business reaches the registry within a bounded time', async () => {
    await business.stop();
    await startBusiness(21000);
    const deadline = Date.now() + 10_000;
    let amount: number | undefined;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      await registry.reindexNow();
      amount = (await indexedServices()).find((s) => s.service_id === 'svc_bridal_trial')?.pricing.amount;
      if (amount === 21000) break;
    }
    expect(amount).toBe(21000);
  }, 40_000);

  it('a key the profile does not publish proves nothing: 401, nothing indexed', async () => {
    const stranger = createSigningIdentity('stranger');
    const other = profiles.addProfile('/other/.well-known/usp', { keys: [], extra: profileDoc(business.url) });
    const { status, body } = await signed(
      'POST',
      '/registry/businesses',
      registration(other, { name: 'Other' }),
      stranger,
      other,
    );
    expect(status).toBe(401);
    expect(body.code).toBeDefined();
    expect((await search({ query: 'other' })).services).toEqual([]);
  });

  it('a registrant that proves control of another profile cannot register this one', async () => {
    const victim = profiles.addProfile('/victim/.well-known/usp', { keys: [], extra: profileDoc(business.url) });
    const { status, body } = await signed(
      'POST',
      '/registry/businesses',
      registration(victim, { name: 'Victim' }),
      owner,
      profileUrl,
    );
    expect(status).toBe(401);
    expect(body.code).toBe('business_control_not_proven');
  });

  it.each([
    ['a private address', 'https://10.1.2.3/.well-known/usp', 424, 'profile_unreachable'],
    ['the cloud metadata address', 'https://169.254.169.254/.well-known/usp', 424, 'profile_unreachable'],
    ['plain http off loopback', 'http://salon.example.com/.well-known/usp', 400, 'invalid_profile_url'],
    ['not a URL', 'salon', 400, 'invalid_profile_url'],
  ])('%s as profile_url is refused (%s), nothing indexed', async (_what, url, status, code) => {
    const res = await admin('POST', '/registry/businesses', registration(url, { name: 'Nowhere' }));
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await search({ query: 'nowhere' })).services).toEqual([]);
  });

  it('an unreachable profile is profile_unreachable; an invalid one invalid_request; nothing indexed', async () => {
    const gone = profiles.urlFor('/gone/.well-known/usp');
    expect((await admin('POST', '/registry/businesses', registration(gone))).body.code).toBe('profile_unreachable');
    const invalid = profiles.setRaw('/invalid/.well-known/usp', JSON.stringify({ hello: 'world' }));
    const res = await admin('POST', '/registry/businesses', registration(invalid));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('profile_invalid');
  });

  it('a deployment_mode that does not match the profile is refused', async () => {
    const res = await admin(
      'POST',
      '/registry/businesses',
      registration(profileUrl, { deployment_mode: 'ucp_native' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('deployment_mode_mismatch');
  });

  it('a business with services at its address must give a location', async () => {
    const { location: _l, ...noLocation } = registration(profileUrl);
    const res = await admin('POST', '/registry/businesses', noLocation);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('location_required');
  });

  it('get is public; update and delete need the registrant, and delete removes the cached services', async () => {
    const id = (await indexedServices())[0].business.id as string;
    const got = await fetch(`${registryUrl}/registry/businesses/${id}`);
    const gotBody = await got.json();
    expect(got.status).toBe(200);
    expect(specErrors(() => validateRestResponse('GET', '/registry/businesses/{id}', 200, gotBody))).toEqual([]);
    const missing = await fetch(`${registryUrl}/registry/businesses/reg_nope`);
    expect(missing.status).toBe(404);

    const stranger = createSigningIdentity('stranger-2');
    const strangerProfile = profiles.addProfile('/stranger/.well-known/usp', {
      keys: [stranger.publicJwk],
      extra: profileDoc(business.url),
    });
    expect((await signed('DELETE', `/registry/businesses/${id}`, undefined, stranger, strangerProfile)).status).toBe(
      401,
    );
    expect(
      (
        await signed(
          'PUT',
          `/registry/businesses/${id}`,
          registration(profileUrl, { name: 'Hijacked' }),
          stranger,
          strangerProfile,
        )
      ).status,
    ).toBe(401);

    const updated = await signed(
      'PUT',
      `/registry/businesses/${id}`,
      registration(profileUrl, { name: 'Maple & Pine (renamed)' }),
      owner,
      profileUrl,
    );
    expect(updated.status).toBe(200);
    expect(specErrors(() => validateRestResponse('PUT', '/registry/businesses/{id}', 200, updated.body))).toEqual([]);
    expect(updated.body.registration.name).toBe('Maple & Pine (renamed)');

    const deleted = await signed('DELETE', `/registry/businesses/${id}`, undefined, owner, profileUrl);
    expect(deleted.status).toBe(204);
    expect(await indexedServices()).toEqual([]);
    expect(await registry.store.read((tx) => tx.registry.services(id))).toEqual([]);
    expect((await fetch(`${registryUrl}/registry/businesses/${id}`)).status).toBe(404);
  });

  it('a registration whose profile disappears is removed after repeated failed re-fetches (spec 6.7)', async () => {
    const path = '/fleeting/.well-known/usp';
    // A key stays bound to the first profile it presented (decision D9): another business, another key.
    const fleeting = createSigningIdentity('fleeting-key');
    // A business of its own, with an empty catalog served beside its profile.
    const url = profiles.addProfile(path, {
      keys: [fleeting.publicJwk],
      extra: profileDoc(profiles.urlFor('/fleeting')),
    });
    profiles.setRaw('/fleeting/services/feed', JSON.stringify({ items: [], pagination: { has_more: false } }));
    const reg = await signed(
      'POST',
      '/registry/businesses',
      registration(url, { name: 'Fleeting Salon' }),
      fleeting,
      url,
    );
    expect(reg.status).toBe(201);
    profiles.remove(path);
    const id = reg.body!.registration.id as string;
    for (let i = 0; i < 2; i++) {
      // Make it due now, as time passing would.
      await registry.store.transaction(async (tx) => {
        const row = await tx.registry.get(id);
        if (row) await tx.registry.put({ ...row, next_index_ms: 0 });
      });
      await registry.reindexNow();
    }
    expect(await registry.store.read((tx) => tx.registry.get(id))).toBeNull();
  });
});
