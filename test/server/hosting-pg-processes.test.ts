/**
 * Two `usp-server host serve` processes on one PostgreSQL database (as behind a load balancer): the
 * deployment's directory lives in the database (src/store/postgres/deployment-directory.ts), so a
 * business added by `host add --db` is served by both, one suspended through one process's operator
 * API is refused at the other, resumed by `host resume` it books at both, and one removed is gone from
 * both. The children run on the real clock: the days asked for come from it. Skipped, saying why,
 * without USP_TEST_PG_URL; the test makes a database of its own and drops it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall } from '../support/host-fetch.js';
import { waitFor } from '../support/time.js';
import { PG_URL, adminClient, noteSkipped } from '../pg/helpers.js';
import { bookFirstFree } from '../support/hosting.js';

const NORD_FILE = resolve(import.meta.dirname, '../fixtures/hosting/nord-studio.json');
const OPERATOR_KEY = 'operator-key-0123456789abcdef';
const SALON = { id: 'biz_maple_pine', host: 'salon.localhost', service: 'svc_haircut' };
const NORD = { id: 'biz_nord_studio', host: 'nord.localhost', service: 'svc_nord_trim' };

const book = bookFirstFree;

if (!PG_URL)
  describe.skip(noteSkipped('two host serve processes on one PostgreSQL'), () => {
    test('a business added at one process is served by both; suspended at one, refused at the other', () => {});
  });
else
  describe('two host serve processes on one PostgreSQL database share the deployment directory', () => {
    const work = mkdtempSync(join(tmpdir(), 'usp-hosting-pg-'));
    const dbName = `usp_hostpg_${process.pid}_${randomBytes(3).toString('hex')}`;
    const u = new URL(PG_URL!);
    u.pathname = `/${dbName}`;
    const db = u.toString();
    const procs: RunningCli[] = [];
    const ports: string[] = [];
    const host = (args: string[]) =>
      runCli(['host', ...args, '--db', db, '--data', join(work, 'cli')], { cwd: work, timeoutMs: 30_000 });

    beforeAll(async () => {
      ensureBuilt();
      const admin = await adminClient();
      try {
        await admin.query(`CREATE DATABASE ${dbName}`);
      } finally {
        await admin.end();
      }
      const first = await host(['add', '--demo', '--host', SALON.host]);
      expect(first.code, first.stderr).toBe(0);
      for (const name of ['one', 'two']) {
        const p = await startCliServer(
          [
            'host',
            'serve',
            '--db',
            db,
            '--data',
            join(work, name),
            '--port',
            '0',
            '--sandbox',
            '--operator-host',
            'operator.localhost',
            '--operator-key',
            OPERATOR_KEY,
          ],
          { cwd: work },
        );
        procs.push(p);
        ports.push(new URL(p.url).port);
      }
    }, 90_000);

    afterAll(async () => {
      for (const p of procs) await p.stop();
      const admin = await adminClient();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      rmSync(work, { recursive: true, force: true });
    });

    test('a business added by the CLI while both serve is served by both', async () => {
      const added = await host(['add', NORD_FILE, '--host', NORD.host]);
      expect(added.code, added.stderr).toBe(0);
      for (const port of ports) {
        await waitFor(
          async () => (await hostCall(`http://${NORD.host}:${port}/.well-known/usp`)).status === 200,
          5000,
          `Nord served at :${port}`,
        );
        expect((await book(port, NORD)).status).toBe(201);
        expect((await book(port, SALON)).status).toBe(201);
      }
      const listed = await host(['list', '--json']);
      expect(JSON.parse(listed.stdout).map((b: { id: string }) => b.id)).toEqual([SALON.id, NORD.id]);
    }, 60_000);

    test('suspended through one process, refused at the other; resumed by the CLI, both book again', async () => {
      const [one, two] = ports as [string, string];
      const s = await hostCall(`http://operator.localhost:${one}/businesses/${NORD.id}/suspend`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
        body: { reason: 'Closed for renovation' },
      });
      expect(s.status, s.text).toBe(200);
      await waitFor(
        async () =>
          JSON.stringify((await hostCall(`http://${NORD.host}:${two}/.well-known/usp`)).body).includes(
            'Closed for renovation',
          ),
        3000,
        'the suspension in force at the other process',
      );
      const refused = await book(two, NORD);
      expect(refused.status).not.toBe(201);
      expect(refused.text).toContain('Closed for renovation');
      // The other business is untouched at either process.
      expect((await book(two, SALON)).status).toBe(201);
      const resumed = await host(['resume', NORD.id]);
      expect(resumed.code, resumed.stderr).toBe(0);
      for (const port of ports) {
        await waitFor(
          async () =>
            !JSON.stringify((await hostCall(`http://${NORD.host}:${port}/.well-known/usp`)).body).includes(
              'renovation',
            ),
          3000,
          `resumed at :${port}`,
        );
        expect((await book(port, NORD)).status).toBe(201);
      }
    }, 60_000);

    test("a business whose file is not on the serving machine is composed from the directory's copy of it", async () => {
      // As when `host add` ran on another machine: the path it recorded means nothing here.
      const far = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
      far.business.id = 'biz_far_studio';
      far.business.name = 'Far Studio';
      const file = join(work, 'elsewhere', 'far.json');
      mkdirSync(join(work, 'elsewhere'));
      writeFileSync(file, JSON.stringify(far));
      const added = await host(['add', file, '--host', 'far.localhost']);
      expect(added.code, added.stderr).toBe(0);
      rmSync(file);
      for (const port of ports) {
        await waitFor(
          async () => (await hostCall(`http://far.localhost:${port}/.well-known/usp`)).status === 200,
          5000,
          `Far Studio served at :${port}`,
        );
        expect(JSON.stringify((await hostCall(`http://far.localhost:${port}/.well-known/usp`)).body)).toContain(
          'Far Studio',
        );
        expect((await book(port, { id: 'biz_far_studio', host: 'far.localhost', service: NORD.service })).status).toBe(
          201,
        );
      }
    }, 60_000);

    test('a business removed by the CLI is gone from both', async () => {
      const removed = await host(['remove', NORD.id]);
      expect(removed.code, removed.stderr).toBe(0);
      for (const port of ports)
        await waitFor(
          async () => (await hostCall(`http://${NORD.host}:${port}/.well-known/usp`)).status === 404,
          3000,
          `Nord gone at :${port}`,
        );
      expect((await hostCall(`http://${SALON.host}:${ports[1]}/.well-known/usp`)).status).toBe(200);
    }, 60_000);
  });
