/**
 * The command line as a new user meets it: the built `bin/usp-server.js`, spawned (run
 * `npm run build` first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { BUYER, day, startTestServer } from '../support/server.js';

const COMMANDS = ['serve', 'mcp', 'bookings', 'webhooks', 'keys', 'validate', 'hash-key'];

describe('every command has its own help', () => {
  it.each(COMMANDS)('%s --help prints that command\'s usage and exits 0', async (name) => {
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
      const q = await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
      const slot = q.body.slots[0];
      const b = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER }, { idempotencyKey: 'cli-test-booking-1' });
      expect(b.status).toBe(201);
      bookingId = b.body.booking.id;
    } finally {
      await t.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['get', 'confirm', 'start', 'complete', 'no-show', 'cancel'])('bookings %s with an unknown id exits 1 and names the database', async (sub) => {
    const r = await runCli(['bookings', sub, 'bk_does_not_exist', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('booking_not_found');
    expect(r.stderr).toContain(db);
  });

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
    const r = await runCli(['bookings', 'get', 'bk_x', '--db', 'postgres://usp:s3cret@127.0.0.1:1/nope'], { timeoutMs: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('s3cret');
  });
});
