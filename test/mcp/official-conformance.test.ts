/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * devDependencies; it needs Node 22, see test/support/node22.ts) against `usp-server serve --demo`
 * over Streamable HTTP on a free loopback port. Every server scenario that applies to a USP
 * business server must pass; the others test fixtures of the suite's own reference server.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/build.js';
import { ensureNode22, node22Unavailable } from '../support/node22.js';

const CLI = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** Scenarios that apply to us: each must have no failed check. */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Scenarios that do not apply, with the reason (also in docs/DECISIONS.md, "Hardening: protocol"). */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'we declare no logging capability (logs go to stderr, not to the client)',
  'completion-complete': 'we declare no completions capability (no prompts or resource templates to complete)',
  'tools-call-simple-text': "calls the suite's fixture tool test_simple_text",
  'tools-call-image': "calls the suite's fixture tool test_image_content",
  'tools-call-audio': "calls the suite's fixture tool test_audio_content",
  'tools-call-embedded-resource': "calls the suite's fixture tool test_embedded_resource",
  'tools-call-mixed-content': "calls the suite's fixture tool test_multiple_content_types",
  'tools-call-with-logging': "calls the suite's fixture tool test_tool_with_logging",
  'tools-call-error': "calls the suite's fixture tool test_error_handling",
  'tools-call-with-progress': "calls the suite's fixture tool test_tool_with_progress",
  'tools-call-sampling': "calls the suite's fixture tool test_sampling (we never ask the client's model)",
  'tools-call-elicitation': "calls the suite's fixture tool test_elicitation (we never elicit)",
  'elicitation-sep1034-defaults': "calls the suite's fixture elicitation tool",
  'elicitation-sep1330-enums': "calls the suite's fixture elicitation tool",
  'resources-read-text': "reads the suite's fixture resource test://static-text",
  'resources-read-binary': "reads the suite's fixture resource test://static-binary",
  'resources-templates-read': "reads the suite's fixture template test://template/{id}/data",
  'prompts-list': 'we declare no prompts capability',
  'prompts-get-simple': 'we declare no prompts capability',
  'prompts-get-with-args': 'we declare no prompts capability',
  'prompts-get-embedded-resource': 'we declare no prompts capability',
  'prompts-get-with-image': 'we declare no prompts capability',
};

const unavailable = node22Unavailable();
let server: ChildProcess | undefined;
let outDir = '';
const results = new Map<string, Array<{ id: string; status: string; errorMessage?: string }>>();

beforeAll(async () => {
  if (unavailable) return;
  ensureBuilt();
  const node22 = ensureNode22();
  server = spawn(process.execPath, [BIN, 'serve', '--demo', '--host', '127.0.0.1', '--port', '0', '--db', ':memory:'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start:\n${log}`)), 20_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const m = /is open at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    server!.stderr!.on('data', read);
    server!.stdout!.on('data', read);
  });
  outDir = mkdtempSync(join(tmpdir(), 'usp-mcp-conformance-'));
  // Exits non-zero when any scenario fails (the fixture ones do): the results are read from outDir.
  try {
    execFileSync(node22, [CLI, 'server', '--url', `${url}/mcp`, '--output-dir', outDir], {
      stdio: 'pipe',
      timeout: 90_000,
    });
  } catch (err) {
    if ((err as { signal?: string }).signal) throw err;
  }
  for (const dir of readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir);
    if (m) results.set(m[1], JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')));
  }
}, 115_000);

afterAll(() => {
  server?.kill();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe.skipIf(unavailable !== null)(
  `the official MCP conformance suite passes every server scenario that applies${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('the suite ran every scenario it lists, and each is classified here as applicable or not (a new one must be looked at)', () => {
      const ran = [...results.keys()].sort();
      expect(ran.length).toBeGreaterThan(20);
      expect(ran).toEqual([...APPLICABLE, ...Object.keys(NOT_APPLICABLE)].sort());
    });

    it.each(APPLICABLE)('%s: no failed check', (scenario) => {
      const checks = results.get(scenario) ?? [];
      expect(checks.length).toBeGreaterThan(0);
      expect(checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage}`)).toEqual([]);
      expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
    });
  },
);
