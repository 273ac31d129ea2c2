/**
 * The command line as a new user meets it: the built `bin/usp-server.js`, spawned (run
 * `npm run build` first).
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, runCli, startServeCli } from '../support/cli.js';
import { BUYER, day, startTestServer } from '../support/server.js';

const COMMANDS = ['serve', 'mcp', 'bookings', 'webhooks', 'keys', 'validate', 'hash-key'];

describe('every command has its own help', () => {
  it.each(COMMANDS)("%s --help prints that command's usage and exits 0", async (name) => {
    const r = await runCli([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`usp-server ${name}: `)).toBe(true);
    expect(r.stdout).toMatch(new RegExp(`^Usage:\\n  usp-server ${name}\\b`, 'm'));
    // The help of one command is not the list of every command.
    expect(r.stdout).not.toMatch(/^Commands:/m);
    expect((await runCli(['help', name])).stdout).toBe(r.stdout);
  });

  it('serve --help lists the server flags; bookings --help does not', async () => {
    const serve = await runCli(['serve', '--help']);
    expect(serve.stdout).toMatch(/--port N/);
    expect(serve.stdout).toMatch(/--webhook-timeout SECONDS/);
    const bookings = await runCli(['bookings', '--help']);
    expect(bookings.stdout).toMatch(/usp-server bookings cancel ID/);
    expect(bookings.stdout).not.toMatch(/--port/);
  });

  it('--help alone lists every command and exits 0; no command at all exits 2', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const name of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Commands:/m);
  });

  it('an unknown command exits 2 and points at the help', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "frobnicate" \(see usp-server --help\)/);
  });
});

describe('every failure of a command exits non-zero; an unknown id names the database read', () => {
  let dir: string;
  let db: string;
  let bookingId: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'usp-cli-'));
    db = join(dir, 'demo.db');
    // A real booking in the database the commands read, made through the server.
    const t = await startTestServer({ db });
    try {
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      const slot = q.body.slots[0];
      const b = await t.call(
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
        { idempotencyKey: 'cli-test-booking-1' },
      );
      expect(b.status).toBe(201);
      bookingId = b.body.booking.id;
    } finally {
      await t.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['get', 'confirm', 'start', 'complete', 'no-show', 'cancel'])(
    'bookings %s with an unknown id exits 1 and names the database',
    async (sub) => {
      const r = await runCli(['bookings', sub, 'bk_does_not_exist', '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('booking_not_found');
      expect(r.stderr).toContain(db);
    },
  );

  it('bookings get with a known id prints the booking and exits 0', async () => {
    const r = await runCli(['bookings', 'get', bookingId, '--db', db]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: bookingId, service_id: 'svc_haircut' });
  });

  it('bookings without an id, or with an unknown subcommand, is a usage error (exit 2)', async () => {
    expect((await runCli(['bookings', 'get', '--db', db])).code).toBe(2);
    expect((await runCli(['bookings', 'frob', 'bk_x', '--db', db])).code).toBe(2);
  });

  it('webhooks retry with an unknown delivery id exits 1 and names the database', async () => {
    const r = await runCli(['webhooks', 'retry', '987654', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`no failed delivery #987654 in ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('a postgres:// database is named without its password', async () => {
    const r = await runCli(['bookings', 'get', 'bk_x', '--db', 'postgres://usp:s3cret@127.0.0.1:1/nope'], {
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('s3cret');
  });
});

/** Start `usp-server mcp ...`, wait for the line naming its database, then end it by closing stdin. */
function mcpDatabaseLine(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ line: string; code: number | null }> {
  return new Promise((resolvePromise, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    delete childEnv.DATABASE_URL;
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete childEnv[k];
      else childEnv[k] = v;
    }
    const child = spawn(process.execPath, [BIN, 'mcp', ...args], {
      cwd,
      env: childEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let line: string | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`usp-server mcp did not start\n${stderr}`));
    }, 15_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const m = /database: ([^"\n]+)/.exec(stderr);
      if (m && line === undefined) {
        line = m[1]!;
        child.stdin.end();
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (line === undefined)
        reject(new Error(`usp-server mcp exited with ${code} before naming its database\n${stderr}`));
      else resolvePromise({ line, code });
    });
  });
}

describe('without --db, every command keeps its database in the per-user data directory', () => {
  let dir: string;
  let cwd: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'usp-datadir-'));
    cwd = join(dir, 'assistant-cwd');
    mkdirSync(cwd);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('mcp uses $XDG_DATA_HOME/usp-server/<business id>.db, creates it, says so on stderr, and leaves the working directory alone', async () => {
    const xdg = join(dir, 'xdg');
    const r = await mcpDatabaseLine(['--demo'], cwd, { XDG_DATA_HOME: xdg });
    const expected = join(xdg, 'usp-server', 'biz_maple_pine.db');
    expect(r.line).toBe(expected);
    expect(r.code).toBe(0);
    expect(existsSync(expected)).toBe(true);
    expect(statSync(join(xdg, 'usp-server')).mode & 0o077).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('mcp falls back to ~/.local/share/usp-server without $XDG_DATA_HOME (and with a relative one, which XDG says to ignore)', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const expected = join(home, '.local', 'share', 'usp-server', 'biz_maple_pine.db');
    expect((await mcpDatabaseLine(['--demo'], cwd, { HOME: home, XDG_DATA_HOME: undefined })).line).toBe(expected);
    expect((await mcpDatabaseLine(['--demo'], cwd, { HOME: home, XDG_DATA_HOME: 'relative/dir' })).line).toBe(expected);
    expect(existsSync(expected)).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('serve and the bookings commands use the same file, from any directory; --db and $DATABASE_URL still win', async () => {
    const xdg = join(dir, 'xdg-serve');
    const expected = join(xdg, 'usp-server', 'biz_maple_pine.db');
    const s = await startServeCli(['--demo', '--port', '0'], { cwd, env: { XDG_DATA_HOME: xdg } });
    try {
      expect(s.stderr()).toContain(`database: ${expected}`);
    } finally {
      await s.stop();
    }
    const list = await runCli(['bookings', 'get', 'bk_nope'], { cwd: dir, env: { XDG_DATA_HOME: xdg } });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(expected);
    const other = join(dir, 'explicit.db');
    expect(
      (await runCli(['bookings', 'get', 'bk_nope', '--db', other], { cwd, env: { XDG_DATA_HOME: xdg } })).stderr,
    ).toContain(other);
    expect(
      (await runCli(['bookings', 'get', 'bk_nope'], { cwd, env: { XDG_DATA_HOME: xdg, DATABASE_URL: other } })).stderr,
    ).toContain(other);
    expect(readdirSync(cwd)).toEqual([]);
  }, 60_000); // one serve start and four CLI runs: seconds each on a loaded machine
});

describe('validate, as the README shows it', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'usp-validate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without a file prints a usage line and exits 2', async () => {
    const r = await runCli(['validate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^Usage: usp-server validate FILE\b/);
  });

  it('a copy of the demo file validates wherever it is copied', async () => {
    copyFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), join(dir, 'copy.json'));
    const r = await runCli(['validate', 'copy.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('copy.json: valid (6 services, 11 resources)\n');
  });

  it("the README's sample error output is what validate prints for the file it describes", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = /```\n\$ npx usp-server validate business\.json\n([\s\S]*?)```/.exec(readme);
    expect(block, 'README has a "$ npx usp-server validate business.json" sample').not.toBeNull();
    // The file the README describes: the demo with the paid massage's payment_timing removed and
    // Ava's Monday closing before it opens.
    const file = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
    expect(file.services[3].id).toBe('svc_massage_60');
    expect(file.resources[0].name).toBe('Ava Chen');
    delete file.services[3].policies.payment_timing;
    file.resources[0].schedule.monday[0] = { opens: '18:00', closes: '09:00' };
    writeFileSync(join(dir, 'business.json'), JSON.stringify(file, null, 2));
    const r = await runCli(['validate', 'business.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toBe(block![1]);
  });
});
