/**
 * What one more hosted business costs the process (issue 39, item 7; docs/SCALING.md): its first
 * request, over HTTP at its own host name, opens its store without a thread of its own for WAL
 * checkpoints (one per process serves every file), without running the migrations (its file is a
 * copy of the migrated schema), and without building every repository or preparing every statement
 * (both on first use), and without its dashboard, buyer pages or OAuth authorization server (built on
 * their first request), and without routes of its own (the host's, REST's and MCP's route tables are
 * the process's), without building its workers (each built when the work hub finds its work due, let
 * go once done), and without empty maps held for later. The copy carries no secret: each business
 * still signs with keys of its own.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Hosting } from '../../src/server/hosting.js';
import { SmartRouter } from 'hono/router/smart-router';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createDashboard } from '../../src/bindings/dashboard/index.js';
import { createBuyerPages } from '../../src/bindings/pages/index.js';
import { loadOAuthSecrets } from '../../src/oauth/secrets.js';
import { sqliteRegistryRepo } from '../../src/store/sqlite/registry-repo.js';

// The dashboard's and the buyer pages' apps, counted as the server builds them (the real ones).
vi.mock('../../src/bindings/dashboard/index.js', async (original) => {
  const m = await original<typeof import('../../src/bindings/dashboard/index.js')>();
  return { ...m, createDashboard: vi.fn(m.createDashboard) };
});
vi.mock('../../src/bindings/pages/index.js', async (original) => {
  const m = await original<typeof import('../../src/bindings/pages/index.js')>();
  return { ...m, createBuyerPages: vi.fn(m.createBuyerPages) };
});
// The authorization server's secrets, read (made on the first read) as the OAuth door builds it.
vi.mock('../../src/oauth/secrets.js', async (original) => {
  const m = await original<typeof import('../../src/oauth/secrets.js')>();
  return { ...m, loadOAuthSecrets: vi.fn(m.loadOAuthSecrets) };
});
// A repository no business request uses (the discovery registry's), counted as a store builds it.
vi.mock('../../src/store/sqlite/registry-repo.js', async (original) => {
  const m = await original<typeof import('../../src/store/sqlite/registry-repo.js')>();
  return { ...m, sqliteRegistryRepo: vi.fn(m.sqliteRegistryRepo) };
});
// The MCP door's stateless-era handler (its event bus and hub subscription), counted as the door makes it.
vi.mock('@modelcontextprotocol/server', async (original) => {
  const m = await original<typeof import('@modelcontextprotocol/server')>();
  return { ...m, createMcpHandler: vi.fn(m.createMcpHandler) };
});
// The dashboard's sign-in row (its backoff tables), counted as a server builds it.
vi.mock('../../src/operations/admin/sign-in-env.js', async (original) => {
  const m = await original<typeof import('../../src/operations/admin/sign-in-env.js')>();
  return { ...m, dashboardSignInEnv: vi.fn(m.dashboardSignInEnv) };
});
import { dashboardSignInEnv } from '../../src/operations/admin/sign-in-env.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { hostFetch } from '../support/host-fetch.js';
import { NORD_FILE, bookFirstFree, deployHosting, undeploy, type Deployment } from '../support/hosting.js';

const COUNT = 5;
const ADMIN_KEY = 'hosting-cost-admin-key-0123456789';
const fixture = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
let d: Deployment;
let dir: string;
let hosting: Hosting;
let port: string;
/** Statements each business's store ran, by business id (`onDbStatement`). */
const statements = new Map<string, string[]>();

beforeAll(async () => {
  d = await deployHosting({
    businesses: (dir) =>
      Array.from({ length: COUNT }, (_, i) => {
        const file = join(dir, `b${i}.json`);
        writeFileSync(file, JSON.stringify({ ...fixture, business: { ...fixture.business, id: `biz_cost_${i}` } }));
        return { id: `biz_cost_${i}`, hosts: [`b${i}.localhost`], origin: file, addedAt: i };
      }),
    serverFor: (b) => {
      const seen: string[] = [];
      statements.set(b.id, seen);
      return { onDbStatement: (sql: string) => void seen.push(sql), adminKeys: [ADMIN_KEY] };
    },
    prefix: 'usp-hosting-cost-',
  });
  ({ dir, hosting, port } = d);
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await undeploy(d);
});

const profileOf = async (i: number) => {
  const res = await hostFetch(`http://b${i}.localhost:${port}/.well-known/usp`);
  expect(res.status).toBe(200);
  return (await res.json()) as { keys?: Array<{ kid: string }>; usp: { business_id?: string } };
};

/** The process's threads now (Linux: one entry per thread under /proc/self/task). */
const threads = () => readdirSync('/proc/self/task').length;

describe('one more hosted business, opened by its first request', () => {
  test('runs no migration: its new file is a copy of the migrated schema, and it answers from it', async () => {
    await profileOf(0);
    const ran = statements.get('biz_cost_0')!;
    expect(ran.length).toBeGreaterThan(0);
    // The store's own check of the migrations table runs on every open; nothing is created or recorded.
    const schema = ran.filter((sql) => /\bCREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL)\b|INTO schema_migrations/i.test(sql));
    expect(schema).toEqual([
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)',
    ]);
    expect(existsSync(join(dir, 'businesses', 'biz_cost_0.db'))).toBe(true);
  });

  test.skipIf(!existsSync('/proc/self/task'))(
    'starts no thread of its own: one checkpoint thread serves every business file',
    async () => {
      await profileOf(1);
      const before = threads();
      for (let i = 2; i < COUNT; i++) await profileOf(i);
      // Three more businesses loaded, each store open with its writer, reader and log: no thread more
      // (one checkpoint thread each would be three, plus their isolates' own).
      expect(threads() - before).toBeLessThan(2);
      expect(hosting.loaded).toHaveLength(COUNT);
    },
  );

  test('prepares the statements its requests use, not every repository statement', async () => {
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    await hosting.pool.close('biz_cost_3');
    prepare.mockClear();
    await profileOf(3);
    // About 170 statements on each of two connections were prepared when a store opened.
    expect(prepare.mock.calls.length).toBeLessThan(120);
    prepare.mockRestore();
  });

  test('builds the repositories its requests use: none of another role, on either connection', async () => {
    await hosting.pool.close('biz_cost_3');
    await profileOf(3);
    // Each store built every repository of both connections, the registry's among them: twice a store.
    expect(vi.mocked(sqliteRegistryRepo)).not.toHaveBeenCalled();
    const res = await hostFetch(`http://b3.localhost:${port}/services/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://platform.example/p.json"' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(vi.mocked(sqliteRegistryRepo)).not.toHaveBeenCalled();
  });

  test('builds no routes of its own (host, REST): every hosted business answers through the route tables of the process', async () => {
    await profileOf(0);
    await hosting.pool.close('biz_cost_4');
    await hosting.pool.close('biz_cost_2');
    // Every route any app of the process adds, counted as Hono's router takes it.
    const added = vi.spyOn(SmartRouter.prototype, 'add');
    // Two businesses opened anew, each answering its own profile and a REST operation of its own.
    for (const i of [4, 2]) {
      expect((await profileOf(i)).usp.business_id ?? `biz_cost_${i}`).toBe(`biz_cost_${i}`);
      const res = await hostFetch(`http://b${i}.localhost:${port}/services/list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://platform.example/p.json"' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { services: Array<{ business_id: string }> };
      expect(body.services.length).toBeGreaterThan(0);
      expect(new Set(body.services.map((x) => x.business_id))).toEqual(new Set([`biz_cost_${i}`]));
    }
    // The operations' route table is about 160 routes more (measured: 187 routes a business when each
    // built its own, 26 with the thin fronts of its doors, 2 with the host's and MCP's routes shared).
    // Now the host, REST and MCP routes are the process's: opening a business adds none.
    const routes = added.mock.calls.map((call) => `${call[0]} ${call[1]}`);
    added.mockRestore();
    expect(routes).toEqual([]);
  });

  test('builds no MCP routes of its own: its MCP door answers, for it alone, through the route table of the process', async () => {
    await profileOf(0);
    await profileOf(3);
    await hosting.pool.close('biz_cost_1');
    await hosting.pool.close('biz_cost_2');
    const added = vi.spyOn(SmartRouter.prototype, 'add');
    // Loaded and answering, no MCP request yet: no business has made its stateless-era handler.
    expect(hosting.loaded.length).toBeGreaterThan(1);
    expect(vi.mocked(createMcpHandler)).not.toHaveBeenCalled();
    const served: string[][] = [];
    // Both eras on two businesses opened anew: a 2026-07-28 client (one server per request) and a
    // session of the initialize handshake, each at its business's own host, official SDK client.
    for (const [i, pin] of [
      [1, '2026-07-28'],
      [2, undefined],
    ] as const) {
      const client = new Client(
        { name: 'hosting-cost', version: '1' },
        pin ? { versionNegotiation: { mode: { pin } } } : undefined,
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://b${i}.localhost:${port}/mcp`), {
          fetch: hostFetch,
          requestInit: { headers: { 'USP-Agent': 'profile="https://platform.example/p.json"' } },
        }),
      );
      try {
        const list = (await client.callTool({
          name: 'usp_services_list',
          arguments: { _meta: { usp: { profile: 'https://platform.example/p.json' } } },
        })) as { structuredContent?: { services: Array<{ business_id: string }> } };
        served.push([...new Set(list.structuredContent?.services.map((x) => x.business_id))]);
      } finally {
        await client.close();
      }
    }
    const paths = added.mock.calls.map((call) => call[1]);
    added.mockRestore();
    expect(served).toEqual([['biz_cost_1'], ['biz_cost_2']]);
    // Made by the first 2026-07-28 request, for that business only (the session client needs none).
    expect(vi.mocked(createMcpHandler)).toHaveBeenCalledTimes(1);
    // Each business added /mcp, /sse and /messages to a Hono app of its own when it was loaded.
    expect(paths.filter((p) => p === '/mcp' || p === '/sse' || p === '/messages')).toEqual([]);
  });

  test('builds its dashboard and buyer pages on their first request, not when it is loaded', async () => {
    for (let i = 0; i < COUNT; i++) await profileOf(i);
    expect(hosting.loaded).toHaveLength(COUNT);
    expect(vi.mocked(createDashboard)).not.toHaveBeenCalled();
    expect(vi.mocked(createBuyerPages)).not.toHaveBeenCalled();
    const login = await hostFetch(`http://b1.localhost:${port}/admin/login`, { headers: { Accept: 'text/html' } });
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('<form');
    expect(vi.mocked(createDashboard)).toHaveBeenCalledTimes(1);
    await hostFetch(`http://b1.localhost:${port}/admin/login`, { headers: { Accept: 'text/html' } });
    expect(vi.mocked(createDashboard)).toHaveBeenCalledTimes(1);
  });

  test('builds its OAuth authorization server on its first OAuth request; a token is checked from the store without it', async () => {
    for (let i = 0; i < COUNT; i++) await profileOf(i);
    const built = vi.mocked(loadOAuthSecrets);
    expect(built).not.toHaveBeenCalled();
    // A token this business never issued: refused with the challenge, the authorization server not built.
    const refused = await hostFetch(`http://b2.localhost:${port}/bookings`, {
      headers: {
        'USP-Agent': 'profile="https://platform.example/p.json"',
        Authorization: 'Bearer not-a-token-of-this-business',
      },
    });
    expect(refused.status).toBe(401);
    expect(built).not.toHaveBeenCalled();
    const meta = await hostFetch(`http://b2.localhost:${port}/.well-known/oauth-authorization-server`);
    expect(meta.status).toBe(200);
    expect(((await meta.json()) as { issuer: string }).issuer).toBe(`http://b2.localhost:${port}`);
    expect(built).toHaveBeenCalledTimes(1);
    await hostFetch(`http://b2.localhost:${port}/.well-known/oauth-authorization-server`);
    expect(built).toHaveBeenCalledTimes(1);
  });

  test('holds a week once for every business of the process: two copies of one business share their weeks', async () => {
    await profileOf(0);
    await profileOf(1);
    const week = (i: number) =>
      hosting.pool.peek(`biz_cost_${i}`, async (s) => s.biz.def.resources.find((r) => r.schedule)?.schedule);
    const [a, b] = [await week(0), await week(1)];
    expect(a).toBeDefined();
    // Before, each business held its own copy (about 2 KB for the bench's 50 staff).
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
  });

  test('holds equal weekly schedules once, frozen; an edit of one resource changes that one only', async () => {
    await profileOf(0);
    const hours = () =>
      hosting.pool.peek('biz_cost_0', async (s) => new Map(s.biz.def.resources.map((r) => [r.id, r.schedule])));
    const before = (await hours())!;
    // The fixture's two treatment rooms keep the same week: one value, which nothing can change in place.
    expect(before.get('res_room_treatment_1')).toBe(before.get('res_room_treatment_2'));
    expect(Object.isFrozen(before.get('res_room_treatment_1')?.monday)).toBe(true);
    const monday = [{ opens: '10:00', closes: '12:00' }];
    const res = await hostFetch(`http://b0.localhost:${port}/admin/resources/res_room_treatment_1`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ schedule: { monday } }),
    });
    expect(res.status, await res.text()).toBe(200);
    const after = (await hours())!;
    expect(after.get('res_room_treatment_1')?.monday).toEqual(monday);
    expect(after.get('res_room_treatment_2')).toEqual(before.get('res_room_treatment_2'));
    expect(after.get('res_room_treatment_2')?.monday).not.toEqual(monday);
  });

  test('builds its dashboard sign-in row on first use, and runs no worker pass before the work hub finds work due', async () => {
    // Opened once before (its catalog written), closed, and opened again by a read.
    await profileOf(2);
    await hosting.pool.close('biz_cost_2');
    const built = vi.mocked(dashboardSignInEnv).mock.calls.length;
    await profileOf(2);
    const ran = statements.get('biz_cost_2')!;
    // The hub asks a business it attaches at once: what is due (one read), and nothing is.
    await hosting.hub!.askNow('biz_cost_2');
    // No pass of the webhook dispatcher (its claims of events and deliveries): nothing was queued.
    expect(
      ran.filter((sql) => /FROM outbox WHERE status = 'pending' AND|FROM webhook_deliveries d\b/.test(sql)),
    ).toEqual([]);
    expect(vi.mocked(dashboardSignInEnv).mock.calls.length).toBe(built);
    const env = (await hosting.pool.peek('biz_cost_2', async (s) => s.scope.env))!;
    expect(env.dashboardSignIn).toBe(env.dashboardSignIn);
    expect(vi.mocked(dashboardSignInEnv).mock.calls.length).toBe(built + 1);
  });

  test('builds no worker while it is idle: opened again by a read, none; a booking builds the dispatcher, which lets go once its pass is done', async () => {
    const built = async () =>
      (await hosting.pool.peek('biz_cost_4', async (s) => ({
        webhooks: s.dispatcher.built,
        pushes: s.calendars?.pusher.built ?? false,
      })))!;
    // Its first opening wrote its catalog's events: the dispatcher took them, then let go.
    await profileOf(4);
    await hosting.hub!.askNow('biz_cost_4');
    await vi.waitFor(async () => expect(await built()).toEqual({ webhooks: false, pushes: false }));
    await hosting.pool.close('biz_cost_4');
    await profileOf(4);
    // The hub asks a business it attaches at once: nothing is due, nothing is built.
    await hosting.hub!.askNow('biz_cost_4');
    // Each was about 2 KB per loaded business: its queue's closures, its loop, its lanes' tables.
    expect(await built()).toEqual({ webhooks: false, pushes: false });
    // A write: its events are expanded into deliveries and attempted as before (the agent's profile is on
    // a reserved name, so its delivery is recorded as skipped), then the dispatcher lets go of its parts.
    const ran = statements.get('biz_cost_4')!;
    ran.length = 0;
    const booked = await bookFirstFree(port, { host: 'b4.localhost', service: 'svc_nord_trim' });
    expect(booked.status, booked.text).toBe(201);
    await vi.waitFor(() => expect(ran.some((sql) => sql.startsWith('INSERT INTO webhook_deliveries'))).toBe(true));
    await vi.waitFor(async () => expect(await built()).toEqual({ webhooks: false, pushes: false }));
    expect(ran.some((sql) => sql.startsWith("UPDATE webhook_deliveries SET status = 'skipped'"))).toBe(true);
  });

  test('holds no empty map or set for later: a business opened again by a read keeps only the few it filled', async () => {
    const ids = [0, 1, 3];
    for (const i of ids) await profileOf(i);
    for (const i of ids) await hosting.pool.close(`biz_cost_${i}`);
    // Live objects only (queryObjects collects garbage first), counted, not printed (cheap under load).
    const live = () => v8.queryObjects(Map, { format: 'count' }) + v8.queryObjects(Set, { format: 'count' });
    const before = live();
    for (const i of ids) {
      await profileOf(i);
      await hosting.hub!.askNow(`biz_cost_${i}`);
    }
    // About 31 each before, 25 of them empty (sessions, caches, metrics series, lanes), made on first use now;
    // the rest hold the snapshot's indexes and the statements its opening ran.
    expect((live() - before) / ids.length).toBeLessThan(12);
  }, 60_000);

  test('keeps each business its own secrets: two copies of the schema sign with different keys', async () => {
    const [a, b] = [await profileOf(0), await profileOf(1)];
    const kids = (p: typeof a) => (p.keys ?? []).map((k) => k.kid);
    expect(kids(a).length).toBeGreaterThan(0);
    expect(kids(a).filter((k) => kids(b).includes(k))).toEqual([]);
  });
});
