/**
 * `usp-server serve --register-with URL` (issue 14 item 4): a business started with the flag
 * registers itself with a registry in another process, proving control by signing with the key its
 * own profile publishes, and a search finds its services without any manual registration. A
 * registry that cannot be reached never stops the business.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { eventually, startRegistryCli, type RunningRegistry } from './processes.js';

const search = async (registryUrl: string, body: unknown) => {
  const res = await fetch(`${registryUrl}/registry/search_services`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { services: Array<Record<string, any>> };
};

const ADMIN_KEY = 'register-with-admin-key-0123456789';

describe('a business started with --register-with registers itself (spec 6.1)', () => {
  let registry: RunningRegistry;
  let business: RunningCli;

  beforeAll(async () => {
    ensureBuilt();
    // Not a sandbox: the registry accepts the registration only with the signed proof of control.
    registry = await startRegistryCli([
      '--port',
      '0',
      '--db',
      ':memory:',
      '--allow-loopback-profiles',
      '--no-rate-limit',
      '--require-auth',
    ]);
    business = await startServeCli(
      ['--demo', '--port', '0', '--db', ':memory:', '--register-with', registry.url, '--admin-key', ADMIN_KEY],
      { timeoutMs: 20_000 },
    );
  }, 60_000);
  afterAll(async () => {
    await business?.stop();
    await registry?.stop();
  });

  it("a search at the registry finds the business's services, pointing at its own profile", async () => {
    const found = await eventually(
      async () =>
        (await search(registry.url, { query: 'bridal' })).services.find((s) => s.service_id === 'svc_bridal_trial'),
      20_000,
      'the business is indexed',
    );
    expect(found.business.profile_url).toBe(`${business.url}/.well-known/usp`);
    expect(found.pricing).toMatchObject({ amount: 18000, currency: 'USD' });
    const near = await search(registry.url, {
      location: { coordinates: { lat: 40.7251, lng: -74.0079 }, radius_km: 5 },
      categories: ['cat_hair'],
    });
    expect(near.services.map((s) => s.service_id)).toContain('svc_haircut');
  });

  it('the business logs the registration id the registry gave', async () => {
    // One log line (JSON, in whatever member order the logger writes) names the event and the id.
    await eventually(
      async () =>
        business
          .stderr()
          .split('\n')
          .some((l) => l.includes('registered with the registry') && /"id":"reg_/.test(l)),
      10_000,
      'the registration is logged',
    );
  });

  it('the registry lists exactly one registration for it, however often it registers', async () => {
    const res = await fetch(`${registry.url}/registry/search_business`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'maple' }),
    });
    const body = (await res.json()) as { businesses: Array<Record<string, any>> };
    expect(body.businesses.filter((b) => b.profile_url === `${business.url}/.well-known/usp`)).toHaveLength(1);
  });

  it('a catalog edit through the admin API registers again: the registry finds the new price', async () => {
    await eventually(
      async () =>
        (await search(registry.url, { query: 'bridal' })).services.find((s) => s.service_id === 'svc_bridal_trial'),
      20_000,
      'the business is indexed',
    );
    const edit = await fetch(`${business.url}/admin/services/svc_bridal_trial`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ pricing: { amount: 19500 } }),
    });
    expect(edit.status).toBe(200);
    await eventually(
      async () =>
        (await search(registry.url, { query: 'bridal' })).services.find(
          (s) => s.service_id === 'svc_bridal_trial' && s.pricing?.amount === 19500,
        ),
      30_000,
      'the registry indexes the new price',
    );
  }, 60_000);

  it('a new name for the business (PATCH /admin/business, no service event) registers again: the registry finds it', async () => {
    const edit = await fetch(`${business.url}/admin/business`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ name: 'Harborlight Salon' }),
    });
    expect(edit.status).toBe(200);
    await eventually(
      async () => {
        const res = await fetch(`${registry.url}/registry/search_business`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: 'harborlight' }),
        });
        const body = (await res.json()) as { businesses: Array<Record<string, any>> };
        return body.businesses.some(
          (b) => b.profile_url === `${business.url}/.well-known/usp` && b.name === 'Harborlight Salon',
        );
      },
      30_000,
      'the registry indexes the new name',
    );
  }, 60_000);
});

describe('a registry that cannot be reached never stops the business', () => {
  it('the business serves, and logs the failure for a later retry', async () => {
    ensureBuilt();
    const business = await startServeCli(
      ['--demo', '--port', '0', '--db', ':memory:', '--register-with', 'http://127.0.0.1:9/'],
      { timeoutMs: 20_000 },
    );
    try {
      await eventually(
        async () => /could not reach the registry/.test(business.stderr()),
        15_000,
        'the failure is logged',
      );
      const res = await fetch(`${business.url}/.well-known/usp`);
      expect(res.status).toBe(200);
      expect(business.child.exitCode).toBeNull();
    } finally {
      await business.stop();
    }
  }, 30_000);

  it('a malformed --register-with is a usage error before anything starts', async () => {
    const { runCli } = await import('../support/cli.js');
    const r = await runCli(['serve', '--demo', '--db', ':memory:', '--register-with', 'not a url']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--register-with must be/);
  });
});
