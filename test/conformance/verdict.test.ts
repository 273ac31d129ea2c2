/**
 * What a conformance run proved, said as it is: the first line names the transports checked (REST,
 * and MCP over Streamable HTTP or stdio); "CONFORMANT" only when every MUST-level check that applies
 * ran and passed; otherwise "INCOMPLETE" with the number of MUST-level checks that did not run and the
 * suite's flags or the server's options that would run them; and where the official artifacts come
 * from when they are missing. Through the built command line against our own servers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runSuite, USP_ARTIFACTS } from '../../src/conformance/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { ensureBuilt } from '../support/build.js';
import { BIN, runCli } from '../support/cli.js';
import { ADMIN_KEY, demoBusiness } from '../support/server.js';

async function start(sandbox: boolean): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true, rateLimits: { bookings: 200, holds: 200 } },
  });
  return { server, url: await server.listen(0, '127.0.0.1') };
}

let sandbox: { server: UspServer; url: string };
let secured: { server: UspServer; url: string };
beforeAll(async () => {
  ensureBuilt();
  sandbox = await start(true);
  secured = await start(false);
}, 120_000);
afterAll(async () => {
  await sandbox?.server.close();
  await secured?.server.close();
});

describe('usp-server conformance says what it proved', () => {
  test('against the demo sandbox: INCOMPLETE, never CONFORMANT, with the skipped MUST checks counted and the server options that would run them', async () => {
    const r = await runCli(['conformance', sandbox.url], { timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      `Checking ${sandbox.url} over REST ${sandbox.url}/ and MCP Streamable HTTP ${sandbox.url}/mcp`,
    );
    expect(r.stdout).not.toMatch(/^CONFORMANT/m);
    const incomplete =
      /^INCOMPLETE \(over REST and MCP Streamable HTTP\): no MUST-level check failed, but (\d+) MUST-level check\(s\) did not run \((\d+) skipped\); to run them:$/m.exec(
        r.stdout,
      );
    expect(incomplete, r.stdout.slice(-3000)).not.toBeNull();
    expect(Number(incomplete![1])).toBeGreaterThanOrEqual(8);
    const skippedMust = lines.filter((l) => /^SKIP MUST/.test(l) && !/ registry\./.test(l)).length;
    expect(Number(incomplete![2])).toBeLessThanOrEqual(skippedMust);
    expect(r.stdout).toMatch(
      /^ {2}- the server: require platform authentication \(usp-server serve --require-auth --allow-loopback-profiles\), and the suite: --allow-writes: auth\.required, /m,
    );
  }, 180_000);

  test('against a server with --require-auth and loopback profiles, with --allow-writes: CONFORMANT, naming what did not apply', async () => {
    const r = await runCli(['conformance', secured.url, '--allow-writes'], { timeoutMs: 150_000 });
    expect(r.code, r.stdout.slice(-3000)).toBe(0);
    expect(r.stdout).toMatch(
      /^CONFORMANT \(over REST and MCP Streamable HTTP\): every MUST-level check that applies ran and passed/m,
    );
    expect(r.stdout).toMatch(/^Not applicable to what this business offers \(\d+ MUST-level\): /m);
  }, 180_000);

  test('over --stdio the first line says MCP ran over stdio, and the verdict says so too', async () => {
    const command = `${process.execPath} ${BIN} mcp --demo --db :memory:`;
    const r = await runCli(
      ['conformance', sandbox.url, '--stdio', command, '--only', 'mapping.mcp-total', '--timeout', '45000'],
      { timeoutMs: 90_000 },
    );
    expect(r.stdout.split('\n')[0]).toBe(
      `Checking ${sandbox.url} over REST ${sandbox.url}/ and MCP stdio (${command})`,
    );
    expect(r.stdout).toMatch(/^INCOMPLETE \(over REST and MCP stdio\)/m);
  }, 90_000);

  test('without the official artifacts the note says where to get them, and the skipped checks name --spec with the repository', async () => {
    const report = await runSuite({
      url: sandbox.url,
      specDir: null,
      allowWrites: false,
      registry: false,
      raceWidth: 2,
      timeoutMs: 10_000,
      only: ['discovery.', 'envelope.', 'auth.'],
    });
    expect(report.notes.join('\n')).toContain(`get them from ${USP_ARTIFACTS} and give --spec DIR`);
    expect(report.verdict.verdict).toBe('INCOMPLETE');
    const spec = report.verdict.toRun.find((g) => g.how.includes('--spec DIR'));
    expect(spec?.how).toContain('https://github.com/wix/universal-scheduling-protocol');
    expect(spec?.checks.length).toBeGreaterThan(0);
  }, 90_000);
});
