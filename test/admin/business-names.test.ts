/**
 * The names a business gives itself, its services, resources and locations are one line of at most
 * 200 characters with no control character, and its other texts are bounded too, at every input:
 * the business file (`usp-server import`), the admin API and the dashboard. Each refusal names the
 * field; nothing is stored.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBusinessDocument } from '../../src/domain/index.js';
import { addBusinessUser, storedDefinition } from '../../src/operations/index.js';
import { runCli } from '../support/cli.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { ADMIN_KEY, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-names-'));
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
/** The business definition as stored (what every process compiles). */
const storedDoc = async () => (await t.server.store.read((tx) => storedDefinition(tx)))!.def;
const issuesOf = (doc: unknown) => {
  const r = checkBusinessDocument(doc);
  return r.ok ? [] : r.issues.map((i) => `${i.path}: ${i.message}`);
};

describe('names the business sets refuse control characters, at every input', () => {
  const CONTROL = [
    'a bare CR\rX-INJECTED:1',
    'a line\nbreak',
    'a tab\there',
    'NEL\u0085here',
    'LS\u2028here',
    'a NUL\u0000',
    'an ESC\u001b[31m',
  ];

  it('the business file: each control character in a name is refused, naming the field', () => {
    for (const name of CONTROL) {
      const doc = demoBusiness() as any;
      doc.business.name = name;
      doc.services[0].name = name;
      doc.resources[0].name = name;
      doc.business.locations[0].name = name;
      const issues = issuesOf(doc).join('\n');
      for (const path of ['business.name', 'services[0].name', 'resources[0].name', 'business.locations[0].name']) {
        expect(issues, JSON.stringify(name)).toContain(`${path}: must be one line without control characters`);
      }
    }
  });

  it('the admin API: PATCH of the business, a service, a resource and a location with a CR in the name answers invalid_request naming the field', async () => {
    const before = await storedDoc();
    const edits: Array<[string, string]> = [
      ['/admin/business', 'name'],
      ['/admin/services/svc_haircut', 'name'],
      [`/admin/resources/${demoBusiness().resources[0].id}`, 'name'],
      [`/admin/locations/${demoBusiness().business.locations[0].id}`, 'name'],
    ];
    for (const [path, field] of edits) {
      const r = await admin('PATCH', path, { [field]: 'Studio\rATTENDEE:mailto:x@example.com' });
      expect(r.status, path).toBe(400);
      expect(r.body.code).toBe('invalid_request');
      expect(JSON.stringify(r.body), path).toMatch(/name.*must be one line without control characters/);
    }
    expect(await storedDoc()).toEqual(before);
  });

  it('the dashboard: the business details form with a line break in the name shows the refusal and keeps the name', async () => {
    await addBusinessUser(t.server.store, 'owner@names.example', 'correct horse battery staple', TEST_NOW);
    const d = await signInDashboard(t.url, 'owner@names.example', 'correct horse battery staple');
    const name = (await storedDoc()).business.name;
    const r = await d.post('/admin/ui/business', {
      _csrf: d.csrf,
      name: 'Studio\u2028Evil',
      timezone: 'America/New_York',
      currency: 'USD',
      locale: '',
    });
    expect(r.status).toBe(303);
    const landed = await (await d.get(r.headers.get('location')!)).text();
    expect(landed).toMatch(/must be one line without control characters/);
    expect((await storedDoc()).business.name).toBe(name);
  });
});

describe('names and texts the business sets are bounded in length', () => {
  it('a 30 MB business name is refused by usp-server import, naming the field', async () => {
    const doc = demoBusiness() as any;
    doc.business.name = 'x'.repeat(30 * 1024 * 1024);
    const file = join(dir, 'huge-name.json');
    writeFileSync(file, JSON.stringify(doc));
    const db = join(dir, 'huge.db');
    const r = await runCli(['import', file, '--db', db], {
      env: { USP_CLOCK: `fixed:${new Date(TEST_NOW).toISOString()}` },
      timeoutMs: 60_000,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('business.name: must be at most 200 characters');
  }, 120_000);

  it('over-long names and texts are refused in the file, each naming its field; at the bound they are accepted', () => {
    const doc = demoBusiness() as any;
    doc.services[0].name = 'n'.repeat(201);
    doc.resources[0].name = 'r'.repeat(201);
    doc.business.locations[0].address = 'a'.repeat(2001);
    doc.services[0].description = 'd'.repeat(20_001);
    doc.services[0].tags = ['t'.repeat(201)];
    const issues = issuesOf(doc).join('\n');
    expect(issues).toContain('services[0].name: must be at most 200 characters');
    expect(issues).toContain('resources[0].name: must be at most 200 characters');
    expect(issues).toContain('business.locations[0].address: must be at most 2000 characters');
    expect(issues).toMatch(/services\[0\]\.description.*(20000|string or an object)/);
    expect(issues).toContain('services[0].tags[0]: must be at most 200 characters');
    const fits = demoBusiness() as any;
    fits.services[0].name = 'n'.repeat(200);
    fits.business.locations[0].address = 'Line one\nLine two'.padEnd(2000, '.');
    fits.services[0].description = 'd'.repeat(20_000);
    expect(issuesOf(fits)).toEqual([]);
  });

  it('the admin API refuses an over-long service name (POST and PATCH) naming the field', async () => {
    const r = await admin('PATCH', '/admin/services/svc_haircut', { name: 'n'.repeat(201) });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/name.*must be at most 200 characters/);
    const created = await admin('POST', '/admin/locations', { id: 'loc_long', name: 'L'.repeat(5000) });
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toMatch(/name.*must be at most 200 characters/);
  });
});
