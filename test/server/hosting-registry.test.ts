/**
 * The registry knows the deployment (issue 39 item 6): `usp-server host serve --register-with URL`
 * registers every hosted business with a registry in another process (`usp-server registry
 * --require-auth`: only a request signed with the key the business's own profile publishes is
 * accepted), each at its own origin, including one added while the deployment serves; a service
 * added on a business's dashboard makes it register again. `host remove
 * ID --export FILE` copies the business's database (its bookings in it), removes its registration
 * (gone from the registry's search), frees its host name (404) and deletes its store, while the other
 * business stays registered and served. Every process runs on the real clock; dates come from it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { eventually, startRegistryCli, type RunningRegistry } from '../registry/processes.js';

const NORD_FILE = resolve(import.meta.dirname, '../fixtures/hosting/nord-studio.json');
const work = mkdtempSync(join(tmpdir(), 'usp-hosting-registry-'));
const data = join(work, 'data');
const env = { HOME: work, XDG_DATA_HOME: join(work, 'xdg') };
const AGENT = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
const dayFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

let registry: RunningRegistry;
let served: RunningCli;
let port = '';

const host = (args: string[]) => runCli(['host', ...args, '--data', data], { cwd: work, env, timeoutMs: 30_000 });

/** The registry's businesses whose profile is at this host name. */
async function registered(name: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${registry.url}/registry/search_business`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ deployment_mode: 'standalone' }),
  });
  const body = (await res.json()) as { businesses?: Array<Record<string, any>> };
  return (body.businesses ?? []).filter((b) => b.profile_url === `http://${name}:${port}/.well-known/usp`);
}

async function book(name: string, serviceId: string): Promise<string> {
  for (let n = 2; n < 12; n++) {
    const q = await hostCall(`http://${name}:${port}/availability/query`, {
      method: 'POST',
      headers: AGENT,
      body: { service_id: serviceId, start_date: dayFromNow(n), end_date: dayFromNow(n), limit: 1 },
    });
    const slot = q.body?.slots?.[0];
    if (!slot) continue;
    const made = await hostCall(`http://${name}:${port}/bookings`, {
      method: 'POST',
      headers: AGENT,
      body: {
        service_id: serviceId,
        slot_id: slot.id,
        buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      },
    });
    expect(made.status, made.text).toBe(201);
    return made.body.booking.id as string;
  }
  throw new Error(`no slot at ${name}`);
}

beforeAll(async () => {
  ensureBuilt();
  registry = await startRegistryCli([
    '--port',
    '0',
    '--db',
    ':memory:',
    '--allow-loopback-profiles',
    '--no-rate-limit',
    '--require-auth',
  ]);
  expect((await host(['add', NORD_FILE, '--host', 'nord.localhost'])).code).toBe(0);
  served = await startCliServer(
    [
      'host',
      'serve',
      '--data',
      data,
      '--port',
      '0',
      '--register-with',
      registry.url,
      '--directory-scan',
      '1',
      '--allow-loopback-profiles',
      '--sandbox',
    ],
    { cwd: work, env, timeoutMs: 30_000 },
  );
  port = new URL(served.url).port;
  // Added while the deployment serves: the next directory scan registers it.
  expect((await host(['add', '--demo', '--host', 'salon.localhost'])).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await served?.stop();
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('host serve --register-with registers every hosted business', () => {
  test('both businesses are found at the registry, each at its own origin', { timeout: 60_000 }, async () => {
    const nord = await eventually(
      async () => (await registered('nord.localhost'))[0],
      30_000,
      'Nord Studio is registered',
    );
    expect(nord.name).toBe('Nord Studio');
    const salon = await eventually(
      async () => (await registered('salon.localhost'))[0],
      30_000,
      'the salon (added while serving) is registered',
    );
    expect(salon.name).toBe('Maple & Pine Salon and Studio');
    expect(served.stderr()).toMatch(/registered with the registry/);
  });

  test("a service added on a business's dashboard is found at the registry soon after", {
    timeout: 90_000,
  }, async () => {
    await eventually(async () => (await registered('nord.localhost'))[0], 30_000, 'Nord Studio is registered');
    const owner = { email: 'owner@nord.example', password: 'a long enough password' };
    const made = await runCli(
      ['admin-user', 'add', owner.email, '--config', NORD_FILE, '--db', join(data, 'businesses', 'biz_nord_studio.db')],
      {
        cwd: work,
        env: { ...env, USP_ADMIN_PASSWORD: owner.password },
        timeoutMs: 30_000,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    const dash = await signInDashboard(`http://nord.localhost:${port}`, owner.email, owner.password, hostFetch);
    const saved = await dash.post('/admin/ui/services', {
      _csrf: dash.csrf,
      name: 'Deep Tissue Massage',
      template: 'svc_nord_trim',
      amount: '900',
      minutes: '60',
    });
    expect(decodeURIComponent(saved.headers.get('location') ?? '')).toMatch(/ok=saved/);
    const logged = () =>
      served
        .stderr()
        .split('\n')
        .filter((l) => /regist|catalog|service/i.test(l))
        .slice(-8)
        .join('\n');
    const found = await eventually(
      async () => {
        const res = await fetch(`${registry.url}/registry/search_services`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: 'massage' }),
        });
        return ((await res.json()) as { services: Array<Record<string, any>> }).services.find(
          (x) => x.service_id === 'svc_deep_tissue_massage',
        );
      },
      30_000,
      'the new service is indexed',
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the deployment logged:\n${logged()}`);
    });
    expect(found.business.profile_url).toBe(`http://nord.localhost:${port}/.well-known/usp`);
    // The registry's feed subscription may bring the change too: the deployment registered it again itself.
    await eventually(
      async () =>
        served
          .stderr()
          .split('\n')
          .some((l) => l.includes('registration refreshed') && l.includes('"business":"biz_nord_studio"')),
      20_000,
      'Nord Studio registers again after its catalog changed',
    );
  });
});

describe('host remove --export', () => {
  test('exports the bookings, removes the registration, frees the name and deletes the store', {
    timeout: 90_000,
  }, async () => {
    await eventually(async () => (await registered('salon.localhost'))[0], 30_000, 'the salon is registered');
    await eventually(async () => (await registered('nord.localhost'))[0], 30_000, 'Nord Studio is registered');
    const booking = await book('salon.localhost', 'svc_haircut');
    const file = join(work, 'salon-export.db');
    const removed = await host(['remove', 'biz_maple_pine', '--export', file]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed from the registry ${registry.url}`);
    // The export is the business's database: its booking is in it.
    const exported = new Database(file, { readonly: true });
    try {
      expect(exported.prepare('SELECT id FROM bookings').all()).toContainEqual({ id: booking });
    } finally {
      exported.close();
    }
    expect(await registered('salon.localhost')).toEqual([]);
    const gone = await hostCall(`http://salon.localhost:${port}/.well-known/usp`);
    expect(gone.status).toBe(404);
    expect(existsSync(join(data, 'businesses', 'biz_maple_pine.db'))).toBe(false);
    expect(JSON.parse((await host(['list', '--json'])).stdout).map((b: { id: string }) => b.id)).toEqual([
      'biz_nord_studio',
    ]);
    // The other business stays registered and served.
    expect(await registered('nord.localhost')).toHaveLength(1);
    expect((await hostCall(`http://nord.localhost:${port}/.well-known/usp`)).status).toBe(200);
    // Its name is free for another business.
    expect((await host(['add', '--demo', '--host', 'salon.localhost'])).code).toBe(0);
  });

  test('an unknown id and --export over an existing file are refused', { timeout: 60_000 }, async () => {
    const unknown = await host(['remove', 'biz_nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('biz_nobody');
    const clash = await host(['remove', 'biz_nord_studio', '--export', NORD_FILE]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('exists already');
    expect((await hostCall(`http://nord.localhost:${port}/.well-known/usp`)).status).toBe(200);
  });
});
