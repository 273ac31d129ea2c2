/**
 * The business file as the import and export format of the stored definition: `import` validates
 * exactly as `validate` does and says what it changed (or, dry, what it would), `export` prints a
 * file that imports back to the same definition (the demo business, a generated large one, and one
 * edited through the admin API), and `serve` on a database that holds a definition keeps it and says
 * which is newer, unless --reimport.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBusinessDocument, type BusinessDef } from '../../src/domain/index.js';
import { entriesOf, importDefinition, storedDefinition } from '../../src/operations/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { REPO_ROOT, runCli, startServeCli } from '../support/cli.js';
import { ADMIN_KEY, demoBusiness, startTestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DEMO = join(REPO_ROOT, 'src/server/demo-business.json');
const env = { USP_CLOCK: `fixed:${new Date(TEST_NOW).toISOString()}` };
// Each command starts a Node process; on a loaded machine that takes seconds.
const cli = (args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
const SLOW = 180_000;
const same = (a: BusinessDef, b: BusinessDef) =>
  expect(JSON.stringify(entriesOf(a))).toBe(JSON.stringify(entriesOf(b)));

/** The demo business grown to `n` copies of each service and resource (new ids), still valid. */
function largeBusiness(n: number): BusinessDef {
  const demo = demoBusiness();
  const resources = demo.resources.flatMap((r) =>
    Array.from({ length: n }, (_, i) => ({ ...structuredClone(r), id: `${r.id}_${i}`, name: `${r.name} ${i}` })),
  );
  const services = demo.services.flatMap((s) =>
    Array.from({ length: n }, (_, i) => ({
      ...structuredClone(s),
      id: `${s.id}_${i}`,
      name: `${s.name} ${i}`,
      ...(s.handle ? { handle: `${s.handle}-${i}` } : {}),
      requirements: s.requirements.map((q) => ({ ...q, resource_ids: q.resource_ids.map((id) => `${id}_${i}`) })),
    })),
  );
  const checked = checkBusinessDocument({ ...demo, resources, services });
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues.slice(0, 3)));
  return checked.def;
}

describe('import and export round trips', () => {
  it(
    'the demo business: import, export, and the export imports back with nothing to change',
    async () => {
      const db = join(dir, 'demo.db');
      const first = await cli(['import', DEMO, '--db', db]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/imported into .* \(version 1\): added business:business, location:loc_downtown/);
      const again = await cli(['import', DEMO, '--db', db]);
      expect(again.stdout).toContain('nothing to change');
      const exported = await cli(['export', '--db', db]);
      expect(exported.code, exported.stderr).toBe(0);
      const file = join(dir, 'exported.json');
      writeFileSync(file, exported.stdout);
      const checked = checkBusinessDocument(JSON.parse(exported.stdout));
      expect(checked.ok).toBe(true);
      if (checked.ok) same(checked.def, demoBusiness());
      expect((await cli(['import', file, '--db', db])).stdout).toContain('nothing to change');
    },
    SLOW,
  );

  it(
    'a dry run names what would change and changes nothing',
    async () => {
      const db = join(dir, 'dry.db');
      await cli(['import', DEMO, '--db', db]);
      const raw = JSON.parse(readFileSync(DEMO, 'utf8'));
      raw.services[0].name = 'Renamed cut';
      raw.services.pop();
      const file = join(dir, 'changed.json');
      writeFileSync(file, JSON.stringify(raw));
      const dry = await cli(['import', file, '--db', db, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('would change');
      expect(dry.stdout).toContain(`changed service:${raw.services[0].id}`);
      expect(dry.stdout).toMatch(/removed service:\S+/);
      expect(JSON.parse((await cli(['export', '--db', db])).stdout).services[0].name).not.toBe('Renamed cut');
    },
    SLOW,
  );

  it(
    'an invalid file is refused with the same lines validate prints, and nothing is stored',
    async () => {
      const raw = JSON.parse(readFileSync(DEMO, 'utf8'));
      raw.services[1].pricing.currency = 'usd';
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(raw));
      const db = join(dir, 'bad.db');
      const imported = await cli(['import', file, '--db', db]);
      const validated = await cli(['validate', file]);
      expect(imported.code).toBe(1);
      expect(imported.stderr).toBe(validated.stderr);
      const exported = await cli(['export', '--db', db]);
      expect(exported.code).toBe(1);
      expect(exported.stderr).toContain('holds no business definition');
    },
    SLOW,
  );

  it(
    'a generated large business (hundreds of services and resources) stores and reads back the same',
    async () => {
      const big = largeBusiness(40);
      expect(big.services.length).toBe(240);
      const store = await openSqliteStore({ path: ':memory:' });
      try {
        const summary = await store.transaction((tx) => importDefinition(tx, big));
        expect(summary.added.length).toBe(
          1 + big.business.locations.length + big.resources.length + big.services.length,
        );
        const back = await store.read((tx) => storedDefinition(tx));
        same(back!.def, big);
        expect((await store.transaction((tx) => importDefinition(tx, back!.def))).changed).toBe(false);
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    'a definition edited through the admin API exports to a file that imports back to the same definition',
    async () => {
      const db = join(dir, 'edited.db');
      const t = await startTestServer({ db });
      const admin = (method: string, path: string, body?: unknown) =>
        t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
      try {
        expect(
          (await admin('PATCH', '/admin/services/svc_haircut', { pricing: { amount: 7000 }, description: 'A new cut' }))
            .status,
        ).toBe(200);
        expect(
          (await admin('POST', '/admin/locations', { id: 'loc_harbor', name: 'Harbor', address: '1 Pier' })).status,
        ).toBe(201);
        expect(
          (
            await admin('PATCH', '/admin/resources/res_stylist_ben', {
              schedule: { monday: [{ opens: '12:00', closes: '20:00' }] },
            })
          ).status,
        ).toBe(200);
        expect((await admin('PATCH', '/admin/business', { name: 'Maple & Pine Harbor', locale: 'en-GB' })).status).toBe(
          200,
        );
        expect(
          (
            await admin('PATCH', '/admin/settings', {
              hold_ttl_seconds: 420,
              max_query_days: 14,
              mail_reminders: false,
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await admin('POST', '/admin/categories', {
              id: 'cat_weddings',
              name: 'Weddings',
              service_ids: ['svc_bridal_trial', 'svc_haircut'],
            })
          ).status,
        ).toBe(201);
        expect((await admin('PATCH', '/admin/categories/cat_weddings', { name: 'Bridal & weddings' })).status).toBe(
          200,
        );
        expect((await admin('POST', '/admin/services/svc_bridal_trial/archive')).status).toBe(200);
      } finally {
        await t.close();
      }
      const exported = await cli(['export', '--db', db]);
      expect(exported.code, exported.stderr).toBe(0);
      const doc = JSON.parse(exported.stdout);
      expect(doc.services.find((s: any) => s.id === 'svc_haircut').pricing.amount).toBe(7000);
      expect(doc.services.find((s: any) => s.id === 'svc_bridal_trial').status).toBe('archived');
      expect(doc.business).toMatchObject({ name: 'Maple & Pine Harbor', locale: 'en-GB' });
      expect(doc.settings).toMatchObject({ hold_ttl_seconds: 420, max_query_days: 14, mail_reminders: false });
      expect(doc.services.find((s: any) => s.id === 'svc_haircut').categories).toContainEqual({
        taxonomy: 'merchant',
        id: 'cat_weddings',
        name: 'Bridal & weddings',
      });
      const file = join(dir, 'edited.json');
      writeFileSync(file, exported.stdout);
      const fresh = join(dir, 'edited-copy.db');
      expect((await cli(['import', file, '--db', fresh])).code).toBe(0);
      expect((await cli(['export', '--db', fresh])).stdout).toBe(exported.stdout);
      expect((await cli(['import', file, '--db', db])).stdout).toContain('nothing to change');
    },
    SLOW,
  );
});

describe('serve and the stored definition', () => {
  it(
    'serve on an empty database imports the file; on one with a definition the database wins and says which is newer; --reimport stores the file',
    async () => {
      const db = join(dir, 'serve.db');
      const raw = JSON.parse(readFileSync(DEMO, 'utf8'));
      raw.business.id = 'biz_other_salon';
      const other = join(dir, 'other.json');
      writeFileSync(other, JSON.stringify(raw));
      const first = await startServeCli(['--config', other, '--db', db, '--port', '0', '--sandbox'], {
        env,
        timeoutMs: 60_000,
      });
      await first.stop();
      raw.business.name = 'Other Name Salon';
      writeFileSync(other, JSON.stringify(raw));
      const second = await startServeCli(['--config', other, '--db', db, '--port', '0', '--sandbox'], {
        env,
        timeoutMs: 60_000,
      });
      try {
        expect(second.stderr()).toContain('was changed after it was imported');
        expect(second.stderr()).toContain(`${demoBusiness().business.name} is open at`);
      } finally {
        await second.stop();
      }
      const third = await startServeCli(['--config', other, '--db', db, '--port', '0', '--sandbox', '--reimport'], {
        env,
        timeoutMs: 60_000,
      });
      try {
        expect(third.stderr()).not.toContain('was changed after');
        expect(third.stderr()).toContain('Other Name Salon is open at');
      } finally {
        await third.stop();
      }
    },
    SLOW,
  );
});
