/**
 * The command line as a new user meets it: the built `bin/usp-server.js`, spawned (run
 * `npm run build` first).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

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
