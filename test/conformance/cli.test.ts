/**
 * The command as a user runs it: `usp-server conformance URL` against a server, one line per check
 * with its clause and level and a summary, `--json` for machines, `--stdio` for an MCP server
 * started as a child, and the exit status (0 only when every MUST passed). Also: docs/CONFORMANCE.md
 * lists every check the suite has, with its clause.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHECKS } from '../../src/conformance/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { ensureBuilt } from '../support/build.js';
import { BIN, REPO_ROOT, runCli } from '../support/cli.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer;
let url: string;

beforeAll(async () => {
  ensureBuilt();
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
  });
  url = await server.listen(0, '127.0.0.1');
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('usp-server conformance URL', () => {
  test('prints one line per check with verdict, level and clause, a summary, and exits 0 when no MUST failed', async () => {
    const r = await runCli(['conformance', url, '--only', 'discovery.', '--only', 'envelope.rest'], {
      timeoutMs: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^PASS MUST +§8\.2\.2 +discovery\.profile-hosting: /m);
    expect(r.stdout).toMatch(/^PASS MUST +§8\.3 step 5 +envelope\.rest: /m);
    expect(r.stdout).toContain('Summary by section:');
    // Only some checks ran: no failure, but not a verdict of conformance.
    expect(r.stdout).toMatch(
      /^INCOMPLETE \(over REST and MCP Streamable HTTP\): no MUST-level check failed, but \d+ MUST-level check\(s\) did not run/m,
    );
    expect(r.stdout).toMatch(/^ {2}- the suite: run without --only: \d+ not selected$/m);
    expect(r.code).toBe(0);
  }, 60_000);

  test('--json prints the report; a MUST failure (no business at the URL) exits 1', async () => {
    const r = await runCli(
      ['conformance', 'http://127.0.0.1:9', '--json', '--only', 'discovery.profile-hosting', '--timeout', '2000'],
      { timeoutMs: 60_000 },
    );
    const report = JSON.parse(r.stdout);
    expect(report.passed).toBe(false);
    expect(report.results).toEqual([
      expect.objectContaining({ id: 'discovery.profile-hosting', clause: '8.2.2', level: 'MUST', verdict: 'FAIL' }),
    ]);
    expect(r.code).toBe(1);
  }, 60_000);

  test('--stdio "COMMAND" checks an MCP server started as a child process', async () => {
    const r = await runCli(
      [
        'conformance',
        url,
        '--stdio',
        `${process.execPath} ${BIN} mcp --demo --db :memory:`,
        '--only',
        'mapping.mcp-total',
        '--only',
        'errors.mcp-outcome',
        '--json',
        '--timeout',
        '45000',
      ],
      { timeoutMs: 90_000 },
    );
    const report = JSON.parse(r.stdout);
    expect(report.results.map((x: any) => [x.id, x.verdict])).toEqual([
      ['mapping.mcp-total', 'PASS'],
      ['errors.mcp-outcome', 'PASS'],
    ]);
  }, 90_000);

  test('a URL is required: usage error, exit 2', async () => {
    const r = await runCli(['conformance'], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: usp-server conformance URL');
  });
});

describe('docs/CONFORMANCE.md lists every check with its clause and level', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/CONFORMANCE.md'), 'utf8');
  for (const c of CHECKS) {
    test(c.id, () => {
      expect(doc).toContain(`| \`${c.id}\` | ${c.section} | ${c.clause} | ${c.level} |`);
    });
  }
});
