/**
 * Export then delete through the operator API (issue 39 item 3), over real HTTP with the Host set:
 * the export is the business's SQLite database (what `host remove --export` writes); a delete is
 * refused until this business's export was taken, unless confirmed; a deleted business is served no
 * more, its store is gone, its export stays, and its names are free for another.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DeploymentDirectory } from '../../src/store/index.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
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

describe('export then delete a hosted business', () => {
  let d: Deployment;
  let dir: string;
  let directory: DeploymentDirectory;
  let port: string;
  const url = (host: string, path: string) => `http://${host}:${port}${path}`;
  const auth = { Authorization: `Bearer ${OPERATOR_KEY}` };
  const op = (path: string, o: { method?: string; body?: unknown } = {}) =>
    hostCall(url('operator.localhost', path), { ...o, headers: auth });
  const served = async (host: string) => (await hostCall(url(host, '/.well-known/usp'))).status;

  beforeAll(async () => {
    d = await deployHosting({ businesses: [salonEntry()], operator: true, prefix: 'usp-operator-removal-' });
    ({ dir, directory, port } = d);
  }, 60_000);
  afterAll(() => undeploy(d));

  test('a delete before the export is refused; the export is its database; then the delete frees its names', async () => {
    const business = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
    expect((await op('/businesses', { method: 'POST', body: { business, hosts: [NORD.host] } })).status).toBe(201);
    expect(await served(NORD.host)).toBe(200);

    const early = await op(`/businesses/${NORD.id}`, { method: 'DELETE' });
    expect(early.status, early.text).toBe(409);
    expect(early.body.detail).toContain('export');
    expect(await served(NORD.host)).toBe(200);

    const res = await hostFetch(url('operator.localhost', `/businesses/${NORD.id}/export`), { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.sqlite3');
    expect(res.headers.get('content-disposition')).toContain(`${NORD.id}.db`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 15).toString()).toBe('SQLite format 3');
    const copy = join(dir, 'downloaded.db');
    writeFileSync(copy, bytes);
    const db = new Database(copy, { readonly: true });
    // Its own data: the setup link its first start offered is in its store.
    expect(db.prepare('SELECT count(*) AS n FROM kv WHERE key = ?').get('dashboard_setup')).toEqual({ n: 1 });
    db.close();

    const gone = await op(`/businesses/${NORD.id}`, { method: 'DELETE' });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toMatchObject({ removed: NORD.id, freed_hosts: [NORD.host] });
    expect(await served(NORD.host)).toBe(404);
    expect(directory.get(NORD.id)).toBeUndefined();
    expect((await op(`/businesses/${NORD.id}`)).status).toBe(404);
    expect(existsSync(join(dir, 'businesses', `${NORD.id}.db`))).toBe(false);
    expect(existsSync(join(dir, 'exports', `${NORD.id}.db`))).toBe(true);

    // Its name is free; the business made again is another, whose delete the old export does not allow.
    expect((await op('/businesses', { method: 'POST', body: { business, hosts: [NORD.host] } })).status).toBe(201);
    expect((await op(`/businesses/${NORD.id}`, { method: 'DELETE' })).status).toBe(409);
    expect((await op(`/businesses/${NORD.id}`, { method: 'DELETE', body: { confirm: 'yes' } })).status).toBe(400);
    const confirmed = await op(`/businesses/${NORD.id}`, { method: 'DELETE', body: { confirm: true } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(directory.get(NORD.id)).toBeUndefined();
  });

  test('an unknown business has no export and no delete', async () => {
    expect((await op('/businesses/biz_nobody/export')).status).toBe(404);
    expect((await op('/businesses/biz_nobody', { method: 'DELETE', body: { confirm: true } })).status).toBe(404);
    expect((await op(`/businesses/${SALON.id}/export`, { method: 'POST' })).status).toBe(405);
    expect(directory.get(SALON.id)).toBeDefined();
  });
});
