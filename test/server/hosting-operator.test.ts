/**
 * The operator's admin API (issue 39 item 3), over real HTTP with the Host set: only at the operator
 * host, only with the operator key (a business's admin key is refused there, and the operator key is
 * refused at a business's /admin); it lists the businesses with their health, adds one from a
 * business file's JSON (which then books at its host), sets host names, suspends and resumes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDeploymentDirectory, type DeploymentDirectory } from '../../src/store/index.js';
import { hashApiKey } from '../../src/security/index.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { hostCall } from '../support/host-fetch.js';
import { operatorFlags } from '../../src/server/cli/host.js';
import type { Flags } from '../../src/server/cli/flags.js';
import {
  NORD,
  NORD_FILE,
  OPERATOR_KEY,
  SALON,
  deployHosting,
  salonEntry,
  undeploy,
  type Deployment,
} from '../support/hosting.js';

const SALON_KEY = 'salon-admin-key-0123456789';
const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };

describe('the operator API of a hosting deployment', () => {
  let d: Deployment;
  let dir: string;
  let directory: DeploymentDirectory;
  let port: string;
  const url = (host: string, path: string) => `http://${host}:${port}${path}`;
  const op = (path: string, o: { method?: string; body?: unknown; key?: string | null } = {}) =>
    hostCall(url('operator.localhost', path), {
      method: o.method,
      body: o.body,
      headers: o.key === null ? {} : { Authorization: `Bearer ${o.key ?? OPERATOR_KEY}` },
    });

  beforeAll(async () => {
    d = await deployHosting({
      businesses: [salonEntry()],
      serverFor: (b) => ({ adminKeys: b.id === SALON.id ? [SALON_KEY] : [] }),
      operator: true,
      prefix: 'usp-operator-',
    });
    ({ dir, directory, port } = d);
  }, 60_000);
  afterAll(async () => {
    await undeploy(d);
  });

  test('without the operator key, or with a wrong one or a business admin key: 401 and no business named', async () => {
    for (const key of [null, 'wrong-key-0123456789', SALON_KEY]) {
      const r = await op('/businesses', { key });
      expect(r.status, r.text).toBe(401);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.text).not.toContain(SALON.id);
    }
    // Nor may a create or a suspension slip through.
    expect((await op(`/businesses/${SALON.id}/suspend`, { method: 'POST', key: SALON_KEY })).status).toBe(401);
    expect(directory.get(SALON.id)!.status).toBe('active');
  });

  test('lists the businesses with their health: a loaded one with its figures, one not loaded without', async () => {
    const before = await op('/businesses');
    expect(before.status, before.text).toBe(200);
    expect(before.body.businesses).toEqual([{ id: SALON.id, status: 'active', hosts: [SALON.host], loaded: false }]);
    expect((await hostCall(url(SALON.host, '/.well-known/usp'))).status).toBe(200);
    const after = await op(`/businesses/${SALON.id}`);
    expect(after.status, after.text).toBe(200);
    expect(after.body.business.loaded).toBe(true);
    expect(after.body.business.health).toMatchObject({
      failing_webhook_deliveries: 0,
      mail_failed: 0,
      stale_calendars: 0,
    });
    expect(typeof after.body.business.health.bookings_today).toBe('number');
    expect(typeof after.body.business.health.mail_queued).toBe('number');
  });

  test('the operator key is nothing at a business host: its /admin refuses it, and /businesses is not there', async () => {
    const admin = await hostCall(url(SALON.host, '/admin/bookings'), {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
    expect(admin.status).toBe(401);
    const list = await hostCall(url(SALON.host, '/businesses'), {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
    expect(list.status).not.toBe(200);
    expect(list.text).not.toContain('loaded');
  });

  test('creates a business from a business file, stored under the data folder; it books at its host', async () => {
    const business = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
    const bad = await op('/businesses', {
      method: 'POST',
      body: { business: { business: { id: 'x' } }, hosts: [NORD.host] },
    });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.issues.length).toBeGreaterThan(0);
    expect(
      (await op('/businesses', { method: 'POST', body: { business, hosts: ['operator.localhost'] } })).status,
    ).toBe(409);
    expect((await op('/businesses', { method: 'POST', body: { business, hosts: [SALON.host] } })).status).toBe(409);
    expect((await op('/businesses', { method: 'POST', body: { business, hosts: ['not a host:80'] } })).status).toBe(
      400,
    );
    expect(directory.get(NORD.id)).toBeUndefined();

    const made = await op('/businesses', { method: 'POST', body: { business, hosts: [NORD.host] } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.business).toEqual({ id: NORD.id, status: 'active', hosts: [NORD.host], loaded: false });
    expect(existsSync(join(dir, 'files', `${NORD.id}.json`))).toBe(true);
    expect((await op('/businesses', { method: 'POST', body: { business, hosts: ['other.localhost'] } })).status).toBe(
      409,
    );

    const q = await hostCall(url(NORD.host, '/availability/query'), {
      method: 'POST',
      headers: AGENT,
      body: { service_id: NORD.service, start_date: day(2), end_date: day(2), limit: 5 },
    });
    expect(q.status, q.text).toBe(200);
    const r = await hostCall(url(NORD.host, '/bookings'), {
      method: 'POST',
      headers: AGENT,
      body: { service_id: NORD.service, slot_id: q.body.slots[0].id, buyer: BUYER },
    });
    expect(r.status, r.text).toBe(201);
    // Its health is its own store's: the confirmation and reminder wait in its mail outbox (no transport given).
    const seen = await op(`/businesses/${NORD.id}`);
    expect(seen.body.business).toMatchObject({
      loaded: true,
      health: { mail_failed: 0, failing_webhook_deliveries: 0 },
    });
    expect(seen.body.business.health.mail_queued).toBeGreaterThan(0);
  });

  test('assigns host names: the new one reaches the business, the old one nothing', async () => {
    const r = await op(`/businesses/${NORD.id}/hosts`, { method: 'PUT', body: { hosts: ['studio.localhost'] } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.business.hosts).toEqual(['studio.localhost']);
    expect((await hostCall(url('studio.localhost', '/.well-known/usp'))).status).toBe(200);
    expect((await hostCall(url(NORD.host, '/.well-known/usp'))).status).toBe(404);
    expect((await op(`/businesses/${NORD.id}/hosts`, { method: 'PUT', body: { hosts: [SALON.host] } })).status).toBe(
      409,
    );
  });

  test('suspends with a reason and resumes; unknown ids and paths are clear problems', async () => {
    const s = await op(`/businesses/${SALON.id}/suspend`, { method: 'POST', body: { reason: 'Unpaid invoice' } });
    expect(s.status, s.text).toBe(200);
    expect(s.body.business).toMatchObject({ status: 'suspended', reason: 'Unpaid invoice' });
    expect(JSON.stringify((await hostCall(url(SALON.host, '/.well-known/usp'))).body)).toContain('Unpaid invoice');
    const q = await hostCall(url(SALON.host, '/availability/query'), {
      method: 'POST',
      headers: AGENT,
      body: { service_id: SALON.service, start_date: day(3), end_date: day(3), limit: 5 },
    });
    expect(q.body.slots ?? []).toEqual([]);
    const back = await op(`/businesses/${SALON.id}/resume`, { method: 'POST' });
    expect(back.status, back.text).toBe(200);
    expect(back.body.business.status).toBe('active');
    expect(JSON.stringify((await hostCall(url(SALON.host, '/.well-known/usp'))).body)).not.toContain('Unpaid invoice');

    const unknown = await op('/businesses/biz_nobody/suspend', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('biz_nobody');
    expect((await op('/admin/bookings')).status).toBe(404);
    expect((await op(`/businesses/${SALON.id}/suspend`, { method: 'POST', body: { reason: 'a\nb' } })).status).toBe(
      400,
    );
    expect((await op(`/businesses/${SALON.id}`, { method: 'PATCH' })).status).toBe(405);
  });

  test('requests that present no key (a browser asking for /favicon.ico) do not spend the sign-in allowance', async () => {
    for (let i = 0; i < 8; i++) expect((await op('/favicon.ico', { key: null })).status).toBe(401);
    expect((await op('/businesses')).status).toBe(200);
  });

  test('failed attempts from one address are slowed down', async () => {
    let last = 0;
    for (let i = 0; i < 8; i++) last = (await op('/businesses', { key: `guess-${i}-0123456789` })).status;
    expect(last).toBe(429);
    // Even the right key waits its turn from that address.
    expect((await op('/businesses')).status).toBe(429);
  });
});

describe('host serve --operator-host', () => {
  test('needs a key, a host name of its own, and keys that are keys; none without it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usp-operator-flags-'));
    const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
    try {
      directory.add({ id: SALON.id, hosts: [SALON.host], origin: 'demo', addedAt: 1 });
      const flags = (f: Record<string, unknown>) => operatorFlags(f as Flags, directory);
      expect(flags({})).toBeUndefined();
      expect(() => flags({ 'operator-key': [OPERATOR_KEY] })).toThrow(/need --operator-host/);
      expect(() => flags({ 'operator-host': 'operator.localhost' })).toThrow(/needs --operator-key/);
      expect(() => flags({ 'operator-host': SALON.host, 'operator-key': [OPERATOR_KEY] })).toThrow(
        /already reaches the business/,
      );
      expect(() => flags({ 'operator-host': 'op.localhost:80', 'operator-key': [OPERATOR_KEY] })).toThrow(
        /not a host name/,
      );
      expect(() => flags({ 'operator-host': 'op.localhost', 'operator-key': ['short'] })).toThrow(/at least 16/);
      expect(() => flags({ 'operator-host': 'op.localhost', 'operator-key-hash': ['abc'] })).toThrow(/64 hex/);
      expect(
        flags({
          'operator-host': 'Op.Localhost',
          'operator-key': [OPERATOR_KEY],
          'operator-key-hash': ['A'.repeat(64)],
        }),
      ).toEqual({
        host: 'op.localhost',
        keyHashes: [hashApiKey(OPERATOR_KEY), 'a'.repeat(64)],
      });
    } finally {
      directory.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
