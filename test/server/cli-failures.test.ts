/**
 * How a command says it failed: a wrong flag names itself (and the flag meant) with the command's
 * usage line and exits 2; a failure at run time (the port taken) exits 1, as --help says; a native
 * module built by another Node is one line naming the fix; and USP_CLOCK puts a process on a test's
 * clock, or stops it with exit 2 when it names no clock.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLOCK_VARIABLE,
  ManualClock,
  ShiftedClock,
  clockFromSetting,
  systemClock,
} from '../../src/operations/index.js';
import { nativeModuleMismatch, nearestFlag } from '../../src/server/cli.js';
import { ensureBuilt } from '../support/build.js';
import { runCli, startServeCli } from '../support/cli.js';
import { TEST_NOW, clockEnv } from '../support/time.js';

beforeAll(() => ensureBuilt());

describe('a wrong flag is named, with the flag probably meant and the command usage line (exit 2)', () => {
  it('serve --prot 3: unknown option --prot (did you mean --port?) and the serve usage line', async () => {
    const r = await runCli(['serve', '--prot', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usp-server: unknown option --prot \(did you mean --port\?\)$/m);
    expect(r.stderr).toMatch(/^Usage:\n {2}usp-server serve \[--demo \| --config FILE\] \[options\]$/m);
    // Node's own wording (with its unbalanced quote) is not shown.
    expect(r.stderr).not.toContain("'--prot");
  });

  it('a flag far from every flag gets no suggestion; a flag without its value says so', async () => {
    const far = await runCli(['webhooks', 'list', '--zzzzzzzz']);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^usp-server: unknown option --zzzzzzzz$/m);
    expect(far.stderr).toContain('usp-server webhooks list');
    const missing = await runCli(['serve', '--port']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^usp-server: --port needs a value$/m);
  });

  it('nearestFlag counts a swap of two letters as one edit and refuses distant names', () => {
    expect(nearestFlag('prot')).toBe('port');
    expect(nearestFlag('dmeo')).toBe('demo');
    expect(nearestFlag('sandbx')).toBe('sandbox');
    expect(nearestFlag('xyzzy')).toBeUndefined();
  });
});

describe('run-time failures exit 1, as --help says', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => taken.close(() => r())));

  it('a port already in use: exit 1 and a line that says so and what to do', async () => {
    const r = await runCli(['serve', '--demo', '--db', ':memory:', '--port', String(port)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`usp-server: cannot listen on 127.0.0.1:${port}: the address is already in use`);
    expect(r.stderr).toContain('--port');
  });

  it('--help documents the exit statuses', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exit status: 0 done; 1 the command ran and failed \([^)]*port already\s+in use/);
    expect(r.stdout).toMatch(/2 the command was used\s+wrongly/);
  });
});

describe('a native module built for another Node is one line that names the fix', () => {
  // The loader's message as Node prints it for better-sqlite3 built by Node 20 and loaded by Node 24.
  const loader = [
    "The module '/srv/usp-server/node_modules/better-sqlite3/build/Release/better_sqlite3.node'",
    'was compiled against a different Node.js version using',
    'NODE_MODULE_VERSION 115. This version of Node.js requires',
    'NODE_MODULE_VERSION 137. Please try re-compiling or re-installing',
    'the module (for instance, using `npm rebuild` or `npm install`).',
  ].join('\n');

  it('names the module, both versions and `npm rebuild better-sqlite3`, on one line', () => {
    const line = nativeModuleMismatch(Object.assign(new Error(loader), { code: 'ERR_DLOPEN_FAILED' }))!;
    expect(line).not.toContain('\n');
    expect(line).toContain('better-sqlite3 was built for another Node.js (module version 115;');
    expect(line).toContain('which needs 137');
    expect(line).toContain('npm rebuild better-sqlite3');
  });

  it('leaves every other error alone', () => {
    expect(nativeModuleMismatch(new Error('SQLITE_CANTOPEN'))).toBeNull();
  });
});

describe('USP_CLOCK: every process of a test on one clock', () => {
  it('unset is the system clock; fixed: stands still; start: runs on from the instant', () => {
    expect(clockFromSetting(undefined)).toBe(systemClock);
    expect(clockFromSetting('')).toBe(systemClock);
    const fixed = clockFromSetting('fixed:2026-12-01T17:00:00Z');
    expect(fixed).toBeInstanceOf(ManualClock);
    expect(fixed.now()).toBe(TEST_NOW);
    let real = 1_000;
    const running = clockFromSetting('start:2026-12-01T17:00:00.000Z', () => real);
    expect(running).toBeInstanceOf(ShiftedClock);
    expect(running.now()).toBe(TEST_NOW);
    real += 1_500;
    expect(running.now()).toBe(TEST_NOW + 1_500);
  });

  it('a value that names no clock is refused with the forms it takes', () => {
    for (const bad of ['2026-12-01T17:00:00Z', 'fixed:tomorrow', 'start:2026-12-01', 'fixed:2026-13-01T00:00:00Z']) {
      expect(() => clockFromSetting(bad), bad).toThrow(/fixed:<instant> or start:<instant>/);
    }
  });

  it('a command with a bad USP_CLOCK exits 2 naming the variable', async () => {
    const r = await runCli(['webhooks', 'list', '--demo', '--db', ':memory:'], {
      env: { [CLOCK_VARIABLE]: 'yesterday' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('USP_CLOCK="yesterday" is not a clock');
  });

  it("serve on a test clock says so at start and answers availability for the clock's days", async () => {
    const s = await startServeCli(['--demo', '--db', ':memory:', '--port', '0'], { env: clockEnv(TEST_NOW) });
    try {
      expect(s.stderr()).toContain('USP_CLOCK=start:2026-12-01T17:00:00.000Z: this process runs on that clock');
      // 2026-12-02 is tomorrow on that clock, whatever day the test runs: it has open slots.
      const res = await fetch(`${s.url}/availability/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: 'svc_haircut', start_date: '2026-12-02', end_date: '2026-12-02' }),
      });
      const body = (await res.json()) as { slots: unknown[] };
      expect(res.status).toBe(200);
      expect(body.slots.length).toBeGreaterThan(0);
    } finally {
      await s.stop();
    }
  });
});
