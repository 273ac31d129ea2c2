/**
 * A business of her own in one step: `usp-server init` writes a business file with ids made from
 * the names (so its database is its own) and says what to run next; a copy of the demo file that
 * keeps the demo's id is refused on the demo's database, saying why; a database edited in the
 * dashboard or the admin API is said to be newer than the file, with `export --out` offered to bring
 * the file up to date, and never an action that discards the edits. Through the built command line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServeCli } from '../support/cli.js';
import { TEST_NOW } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-first-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Databases go to this test's own data directory (the default path is <data dir>/<business id>.db).
const env = { USP_CLOCK: `fixed:${new Date(TEST_NOW).toISOString()}`, XDG_DATA_HOME: join(dir, 'data') };
const cli = (args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
const serve = (args: string[]) => startServeCli([...args, '--port', '0'], { env, timeoutMs: 60_000 });
const SLOW = 180_000;
const KEY = 'first-hour-admin-key-0123456789abcdef';

const INIT = [
  'init',
  '--name',
  "Rosa's Hair Studio",
  '--timezone',
  'Europe/Lisbon',
  '--currency',
  'EUR',
  '--service',
  'Cut & blow-dry',
  '--price',
  '45.50',
  '--minutes',
  '45',
];

describe('usp-server init writes a business of her own', () => {
  it(
    'from flags alone: ids made from the names, her zone, currency and first service priced in euros, and the next command',
    async () => {
      const out = join(dir, 'rosa.json');
      const r = await cli([...INIT, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        "Rosa's Hair Studio (id biz_rosas_hair_studio), Europe/Lisbon, EUR; first service Cut & blow-dry.",
      );
      expect(r.stdout).toContain(`Next: npx usp-server serve --config ${out}`);
      const def = JSON.parse(readFileSync(out, 'utf8'));
      expect(def.business).toMatchObject({
        id: 'biz_rosas_hair_studio',
        name: "Rosa's Hair Studio",
        timezone: 'Europe/Lisbon',
        currency: 'EUR',
      });
      expect(def.services[0]).toMatchObject({
        id: 'svc_cut_blow_dry',
        duration: { fixed: 'PT45M' },
        pricing: { model: 'fixed', amount: 4550, currency: 'EUR' },
      });
      expect((await cli(['validate', out])).code).toBe(0);
      // Not written over, and the price read as money.
      const again = await cli([...INIT, '--out', out]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already exists; give --out another file, or --force');
      const bad = await cli([...INIT.slice(0, -4), '--price', '45.505', '--out', join(dir, 'bad.json')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('EUR has 2 decimal places');
    },
    SLOW,
  );

  it(
    'without a terminal, a missing name or service is named and nothing is written',
    async () => {
      const r = await cli(['init', '--out', join(dir, 'none.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('give --name and --service');
    },
    SLOW,
  );
});

describe('a database belongs to the business it was made for', () => {
  it(
    "the copied demo file keeping biz_maple_pine is refused on the demo's database, saying why; her init file opens her own",
    async () => {
      const demo = await serve(['--demo']);
      await demo.stop();
      const copy = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
      copy.business.name = "Rosa's Hair Studio";
      const copied = join(dir, 'copied.json');
      writeFileSync(copied, JSON.stringify(copy));
      for (const extra of [[], ['--reimport']]) {
        const r = await cli(['serve', '--config', copied, '--port', '0', ...extra]);
        expect(r.code, extra.join(' ')).toBe(1);
        expect(r.stderr).toContain(`belongs to the built-in demo`);
        expect(r.stderr).toContain(`keeps the demo's business id "biz_maple_pine"`);
        expect(r.stderr).toContain('npx usp-server init');
        expect(r.stderr).not.toContain('is open at');
      }
      const own = join(dir, 'own.json');
      expect((await cli([...INIT, '--out', own])).code).toBe(0);
      const mine = await serve(['--config', own]);
      try {
        expect(mine.stderr()).toContain("Rosa's Hair Studio is open at");
        expect(mine.stderr()).toContain(join(dir, 'data', 'usp-server', 'biz_rosas_hair_studio.db'));
      } finally {
        await mine.stop();
      }
      // The other way round: --demo on her database would serve her bookings as a sandbox.
      const wrong = await cli([
        'serve',
        '--demo',
        '--db',
        join(dir, 'data', 'usp-server', 'biz_rosas_hair_studio.db'),
        '--port',
        '0',
      ]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(`holds the business imported from ${own}, not the demo`);
    },
    SLOW,
  );

  it(
    'after an edit in the admin API the start says the database is newer and offers export --out, never --reimport; export brings the file up to date',
    async () => {
      const file = join(dir, 'edited.json');
      const db = join(dir, 'edited.db');
      expect((await cli([...INIT, '--out', file])).code).toBe(0);
      const first = await serve(['--config', file, '--db', db, '--admin-key', KEY]);
      try {
        const res = await fetch(`${first.url}/admin/services/svc_cut_blow_dry`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ pricing: { amount: 5000 } }),
        });
        expect(res.status, await res.text()).toBe(200);
      } finally {
        await first.stop();
      }
      const second = await serve(['--config', file, '--db', db]);
      await second.stop();
      const said = second.stderr();
      expect(said).toContain('was edited (in the dashboard or the admin API) after');
      expect(said).toContain(`is newer than ${file}`);
      expect(said).toContain(`npx usp-server export --db ${db} --out ${file}`);
      expect(said).not.toContain('reimport');
      const exported = await cli(['export', '--db', db, '--out', file]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).services[0].pricing.amount).toBe(5000);
      const third = await serve(['--config', file, '--db', db]);
      await third.stop();
      expect(third.stderr()).not.toContain('differs');
      expect(third.stderr()).not.toContain('newer');
    },
    SLOW,
  );

  it(
    'a file changed after its import (nothing edited in the database) is said to be newer, and import is offered',
    async () => {
      const file = join(dir, 'changed.json');
      const db = join(dir, 'changed.db');
      expect((await cli([...INIT, '--out', file])).code).toBe(0);
      await (await serve(['--config', file, '--db', db])).stop();
      const def = JSON.parse(readFileSync(file, 'utf8'));
      def.services[0].pricing.amount = 6000;
      writeFileSync(file, JSON.stringify(def));
      const again = await serve(['--config', file, '--db', db]);
      await again.stop();
      expect(again.stderr()).toContain(`${file} was changed after it was imported`);
      expect(again.stderr()).toContain(`npx usp-server import ${file} --db ${db}`);
      expect(again.stderr()).not.toContain('reimport');
    },
    SLOW,
  );
});
