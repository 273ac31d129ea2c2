/**
 * `usp-server host serve --db postgres://... --pg-keyed`: the businesses of the deployment as rows of
 * one schema keyed by business (usp_keyed), not a schema each. Two businesses added by `host add` book
 * over REST at their own host names on one process, their rows land in the keyed schema under their
 * own ids (no schema of their own is made), and `host remove --pg-keyed` deletes one business's rows
 * and nothing of the other's. The process connects as a plain role (neither superuser nor BYPASSRLS),
 * so row-level security applies. The child runs on the real clock: the days asked for come from it.
 * Skipped, saying why, without USP_TEST_PG_URL; the test makes a database of its own and drops it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall } from '../support/host-fetch.js';
import { PG_URL, adminClient, noteSkipped, plainRoleUrl } from '../pg/helpers.js';
import { bookFirstFree } from '../support/hosting.js';

const NORD_FILE = resolve(import.meta.dirname, '../fixtures/hosting/nord-studio.json');
const SALON = { id: 'biz_maple_pine', host: 'salon.localhost', service: 'svc_haircut' };
const NORD = { id: 'biz_nord_studio', host: 'nord.localhost', service: 'svc_nord_trim' };
const AGENT = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
const ROLE = 'usp_host_keyed_cli_app';

const book = bookFirstFree;

if (!PG_URL)
  describe.skip(noteSkipped('host serve --pg-keyed'), () => {
    test('two businesses book in one keyed schema; one removed leaves the other', () => {});
  });
else
  describe('host serve --pg-keyed: every business as rows of one schema keyed by business', () => {
    const work = mkdtempSync(join(tmpdir(), 'usp-hosting-pg-keyed-'));
    const dbName = `usp_hostkeyed_${process.pid}_${randomBytes(3).toString('hex')}`;
    let db = '';
    let proc: RunningCli | undefined;
    let port = '';
    let inDb: pg.Client;
    const host = (args: string[]) =>
      runCli(['host', ...args, '--db', db, '--data', join(work, 'cli')], { cwd: work, timeoutMs: 30_000 });
    const bookingsOf = async (id: string) =>
      (await inDb.query(`SELECT count(*)::int AS n FROM usp_keyed.bookings WHERE business_id = $1`, [id])).rows[0].n;

    beforeAll(async () => {
      ensureBuilt();
      const plain = new URL(await plainRoleUrl(ROLE));
      plain.pathname = `/${dbName}`;
      db = plain.toString();
      const admin = await adminClient();
      try {
        await admin.query(`CREATE DATABASE ${dbName} OWNER ${ROLE}`);
      } finally {
        await admin.end();
      }
      const u = new URL(PG_URL!);
      u.pathname = `/${dbName}`;
      inDb = new pg.Client({ connectionString: u.toString() });
      await inDb.connect();
      await inDb.query('CREATE EXTENSION btree_gist WITH SCHEMA public; CREATE EXTENSION pg_trgm WITH SCHEMA public');
      for (const args of [
        ['add', '--demo', '--host', SALON.host],
        ['add', NORD_FILE, '--host', NORD.host],
      ]) {
        const r = await host(args);
        expect(r.code, r.stderr).toBe(0);
      }
      proc = await startCliServer(
        ['host', 'serve', '--db', db, '--pg-keyed', '--data', join(work, 'serve'), '--port', '0', '--sandbox'],
        { cwd: work },
      );
      port = new URL(proc.url).port;
    }, 90_000);

    afterAll(async () => {
      await proc?.stop();
      await inDb?.end();
      const admin = await adminClient();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      rmSync(work, { recursive: true, force: true });
    });

    test('each business books at its own host name, its rows in the keyed schema under its id, and no schema of its own', async () => {
      const salon = await book(port, SALON);
      const nord = await book(port, NORD);
      expect(salon.status, salon.text).toBe(201);
      expect(nord.status, nord.text).toBe(201);
      const rows = await inDb.query<{ business_id: string; id: string }>(
        'SELECT business_id, id FROM usp_keyed.bookings ORDER BY business_id',
      );
      expect(rows.rows).toEqual([
        { business_id: SALON.id, id: salon.id },
        { business_id: NORD.id, id: nord.id },
      ]);
      // The booking of one is unknown at the other's host.
      const across = await hostCall(`http://${NORD.host}:${port}/bookings/${salon.id}`, { headers: AGENT });
      expect(across.status, across.text).toBe(404);
      const schemas = await inDb.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'usp_biz%'`);
      expect(schemas.rows).toEqual([]);
    });

    test('host remove --pg-keyed deletes the business and its rows, and nothing of the other', async () => {
      expect(await bookingsOf(NORD.id)).toBeGreaterThan(0);
      const removed = await host(['remove', NORD.id, '--pg-keyed']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(await bookingsOf(NORD.id)).toBe(0);
      expect(await bookingsOf(SALON.id)).toBe(1);
    });

    test('--pg-keyed without --db, and --export of a keyed business, are usage errors that change nothing', async () => {
      const r = await runCli(['host', 'serve', '--pg-keyed', '--data', join(work, 'nodb'), '--port', '0'], {
        cwd: work,
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--pg-keyed .*--db/);
      // An export of a keyed business is not a schema dump: the message says where its rows are.
      const exported = await host(['remove', SALON.id, '--pg-keyed', '--export', join(work, 'salon.db')]);
      expect(exported.code).toBe(2);
      expect(exported.stderr).toContain('rows are those of usp_keyed');
      expect(await bookingsOf(SALON.id)).toBe(1);
    });
  });
