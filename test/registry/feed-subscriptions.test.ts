/**
 * Freshness through the business's catalog feed subscriptions (spec 3.12.2): the registry
 * subscribes at a business that offers them, as a platform with a profile of its own, and a
 * catalog event signed by the business makes the registry re-index it at once, long before the
 * re-index interval. A callback not signed by the registered business changes nothing.
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
import { eventually } from './processes.js';

describe('the registry follows a business through its feed subscription, not the re-index interval', () => {
  let registry: RegistryServer;
  let registryUrl: string;
  let business: RunningCli;
  let dir: string;
  let port = 0;
  let owner: SigningIdentity;
  let profileUrl: string;
  let registrationId: string;

  /** The business restarted on its database with a changed file: `--reimport` makes the file's definition the stored one. */
  const startBusiness = async (amount: number) => {
    const def = JSON.parse(readFileSync(join(import.meta.dirname, '../../src/server/demo-business.json'), 'utf8'));
    for (const s of def.services) if (s.id === 'svc_bridal_trial') s.pricing.amount = amount;
    // An external checkout takes the money, so the bridal trial (paid when booking) is offered, not suspended.
    def.settings = {
      ...(def.settings ?? {}),
      checkout_url_template: 'https://pay.example/start?b={booking_id}&back={return_url}',
    };
    writeFileSync(join(dir, 'business.json'), JSON.stringify(def));
    business = await startServeCli(
      [
        '--config',
        join(dir, 'business.json'),
        '--port',
        String(port),
        '--db',
        join(dir, 'business.db'),
        '--require-auth',
        '--allow-loopback-profiles',
        '--no-rate-limit',
        '--signing-key',
        join(dir, 'key.pem'),
        '--signing-kid',
        'biz-1',
        '--webhook-retry-first',
        '1',
        '--reimport',
      ],
      { timeoutMs: 20_000 },
    );
    port = Number(new URL(business.url).port);
  };
  const bridalPrice = async () => {
    const res = await fetch(`${registryUrl}/registry/search_services`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'bridal' }),
    });
    const body = (await res.json()) as { services: Array<Record<string, any>> };
    return body.services.find((s) => s.service_id === 'svc_bridal_trial')?.pricing?.amount as number | undefined;
  };

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'usp-registry-feed-'));
    // The business's signing key, known to the test so it can sign the registration as the business.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const jwk = privateKey.export({ format: 'jwk' });
    owner = {
      ...createSigningIdentity('biz-1'),
      privateKey,
      publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: 'biz-1' },
    };
    await startBusiness(18000);
    profileUrl = `${business.url}/.well-known/usp`;
    registry = await createRegistryServer({
      db: ':memory:',
      sandbox: false,
      log: silentLogger,
      // A day between re-indexes and no polling timer: only the feed can bring the change in time.
      reindexIntervalMs: 86_400_000,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { allowLoopbackProfiles: true, rateLimits: false },
    });
    registryUrl = await registry.listen(0, '127.0.0.1');
    const body = JSON.stringify({
      profile_url: profileUrl,
      deployment_mode: 'standalone',
      name: 'Maple & Pine Salon and Studio',
      verticals: ['appointment'],
      categories: ['hair'],
      location: { address: '214 Hudson Street, New York, NY 10013', coordinates: { lat: 40.7251, lng: -74.0079 } },
      timezone: 'America/New_York',
    });
    const url = `${registryUrl}/registry/businesses`;
    const res = await fetch(url, {
      method: 'POST',
      headers: signedHeaders(
        owner,
        'POST',
        url,
        { 'USP-Agent': `profile="${profileUrl}"`, 'Content-Type': 'application/json' },
        body,
      ),
      body,
    });
    const created = (await res.json()) as Record<string, any>;
    expect(res.status, JSON.stringify(created)).toBe(201);
    registrationId = created.registration.id;
  }, 60_000);
  afterAll(async () => {
    await business?.stop();
    await registry?.close();
  });

  it('the registry serves a platform profile declaring catalog subscriptions and publishing its signing keys', async () => {
    const doc = (await (await fetch(`${registryUrl}/registry/platform-profile`)).json()) as Record<string, any>;
    expect(Object.keys(doc.usp.capabilities)).toEqual([
      'dev.usp-protocol.services.catalog',
      'dev.usp-protocol.services.catalog.subscriptions',
    ]);
    expect(doc.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: expect.any(String) });
    expect(doc.keys[0].d).toBeUndefined();
  });

  it('after registering, the registry holds a subscription at the business, made under its platform identity', async () => {
    await eventually(
      async () => {
        const raw = await registry.store.read((tx) => tx.kv.get(`registry_feed_subscription:${registrationId}`));
        return raw ? (JSON.parse(raw) as { subscription_id: string }).subscription_id.startsWith('sub_') : false;
      },
      15_000,
      'the registry subscribed',
    );
  });

  it("a price changed at the business reaches the registry's search within seconds, through the catalog event", async () => {
    expect(await bridalPrice()).toBe(18000);
    await business.stop();
    await startBusiness(15500);
    await eventually(async () => (await bridalPrice()) === 15500, 20_000, 'the new price is indexed');
    // Not the interval: the registration is next due a day from now.
    const row = await registry.store.read((tx) => tx.registry.get(registrationId));
    expect(row!.next_index_ms - Date.now()).toBeGreaterThan(86_000_000);
  }, 40_000);

  it('a callback that the registered business did not sign is refused and re-indexes nothing', async () => {
    const stranger = createSigningIdentity('stranger');
    const url = `${registryUrl}/registry/feed-events/${registrationId}`;
    const body = JSON.stringify({ event: 'service.updated', event_id: 'evt_x' });
    const before = (await registry.store.read((tx) => tx.registry.get(registrationId)))!;
    const res = await fetch(url, {
      method: 'POST',
      headers: signedHeaders(stranger, 'POST', url, { 'Content-Type': 'application/json' }, body),
      body,
    });
    expect(res.status).toBe(401);
    const unsigned = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(unsigned.status).toBe(401);
    const after = (await registry.store.read((tx) => tx.registry.get(registrationId)))!;
    expect(after.next_index_ms).toBe(before.next_index_ms);
    expect((await fetch(`${registryUrl}/registry/feed-events/reg_unknown`, { method: 'POST', body })).status).toBe(404);
  });
});
