/**
 * A fixed instant must never reach a process that runs on the real clock. Benchmarks and tests pin
 * their in-process servers to one instant (BENCH_NOW, TEST_NOW); a child started from
 * `bin/usp-server.js` without `USP_CLOCK` (`clockEnv`) runs on the machine's clock, so a day computed
 * from the pinned instant is in its past once the calendar passes it (issue 34: `bench/views.mjs`
 * asked the stdio server for slots on BENCH_NOW + 3 days and failed from 2026-12-04 on).
 *
 * The check parses every bench module and test file (a real parser: comments and strings never
 * count), finds each start of a real-clock child, and fails when the block that starts it (widened
 * to the enclosing block when the start sits in a `beforeAll`/`beforeEach` hook, whose client the
 * tests beside it use) names a fixed instant: BENCH_NOW, benchDate, TEST_NOW, the test support's
 * `day()`, or a date literal. Dates for such a child come from its clock (`liveDate` in bench/lib.mjs,
 * or `Date.now()`, which a child inherits, faketime included), or the child is pinned with `clockEnv`.
 * And an MCP SDK stdio transport that starts usp-server names its `env`: by default the SDK passes the
 * child only a few variables, so faketime's never reach it and a shifted run asks a child on today's
 * clock about days months ahead (the benchmarks' DST run failed so).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { children, lineIndex, type Node, parseProgram } from './ast.js';

const ROOT = join(import.meta.dirname, '../..');

/** Names that stand for a fixed instant or a day computed from one (`day` only where it is imported: the test support's). */
const FIXED_NAMES = new Set(['BENCH_NOW', 'benchDate', 'TEST_NOW']);
const FIXED_IF_IMPORTED = new Set(['day']);
/** A calendar date or an instant written out: `2026-12-01`, `2026-12-01T17:00:00Z`. */
const DATE_LITERAL = /^\d{4}-\d{2}-\d{2}(T|$)/;
/**
 * Calls that start a process; they start a real-clock usp-server when their text names it. A
 * long-lived child (a server the code then talks to) is checked over the block that starts it; a
 * one-shot command only over its own arguments.
 */
const LONG_LIVED = new Set(['StdioClientTransport', 'StdioV1', 'StdioV2', 'spawn', 'fork', 'startServeCli']);
const ONE_SHOT = new Set(['execFile', 'execFileSync', 'spawnSync', 'runCli']);
/** Starters that always run `bin/usp-server.js`. */
const ALWAYS_USP = new Set(['runCli', 'startServeCli']);
const PINNED = /clockEnv\(|USP_CLOCK/;
const HOOKS = new Set(['beforeAll', 'beforeEach']);

export interface Finding {
  file: string;
  line: number;
  /** What fixed instant was found, and the line of the child's start it reaches. */
  what: string;
}

function calleeName(node: Node): string | undefined {
  const c = node.callee;
  if (c?.type === 'Identifier') return c.name;
  if (c?.type === 'MemberExpression' && c.property?.type === 'Identifier') return c.property.name;
  return undefined;
}

/** The findings in one source file (`path` is repository-relative, for the messages). */
export function findFixedInstantsForRealClockChildren(path: string, text: string): Finding[] {
  const program = parseProgram(path, text);
  const lineOf = lineIndex(text);
  const source = (n: Node) => text.slice(n.start, n.end);

  // Parents, the file's variables (to see through `env` set on the line before), its imports, and
  // each start of a child.
  const candidates: Node[] = [];
  const inits = new Map<string, string>();
  const imported = new Set<string>();
  const walk = (node: Node, parent: Node | null) => {
    node.parent = parent;
    if (node.type === 'VariableDeclarator' && node.id?.type === 'Identifier' && node.init)
      inits.set(node.id.name, source(node.init));
    if (node.type === 'ImportSpecifier' && node.local?.type === 'Identifier') imported.add(node.local.name);
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      const name = calleeName(node);
      if (name && (LONG_LIVED.has(name) || ONE_SHOT.has(name))) candidates.push(node);
    }
    for (const c of children(node)) walk(c, node);
  };
  walk(program, null);
  const isFixed = (name: string) => FIXED_NAMES.has(name) || (FIXED_IF_IMPORTED.has(name) && imported.has(name));
  /** Pinned with USP_CLOCK: in the call's text, or in a variable the call names (one step). */
  const pinned = (call: Node): boolean => {
    if (PINNED.test(source(call))) return true;
    let found = false;
    const look = (n: Node) => {
      if (n.type === 'Identifier' && PINNED.test(inits.get(n.name) ?? '')) found = true;
      for (const c of children(n)) look(c);
    };
    look(call);
    return found;
  };
  const starts = candidates.filter((n) => {
    const name = calleeName(n) ?? '';
    return (ALWAYS_USP.has(name) || /usp-server\.js|\bBIN\b|STDIO_ARGS/.test(source(n))) && !pinned(n);
  });

  /** The innermost block around `node`, or the function whose body is an expression. */
  const enclosingBlock = (node: Node): Node => {
    let n = node.parent;
    while (
      n &&
      n.type !== 'BlockStatement' &&
      n.type !== 'Program' &&
      !(n.type === 'ArrowFunctionExpression' && n.expression)
    )
      n = n.parent;
    return n ?? program;
  };
  const scopeOf = (start: Node): Node => {
    let block = enclosingBlock(start);
    // A child started in a hook serves the tests beside the hook: widen to the hook's own block.
    for (;;) {
      const fn = block.parent;
      const call = fn?.parent;
      const isHookBody =
        (fn?.type === 'ArrowFunctionExpression' || fn?.type === 'FunctionExpression') &&
        call?.type === 'CallExpression' &&
        HOOKS.has(calleeName(call) ?? '');
      if (!isHookBody) return block;
      block = enclosingBlock(call);
    }
  };

  const findings: Finding[] = [];
  const seen = new Set<number>();
  for (const start of candidates) {
    const name = calleeName(start) ?? '';
    if (!/^Stdio/.test(name) || !/usp-server\.js|\bBIN\b|STDIO_ARGS/.test(source(start))) continue;
    const options = start.arguments[0];
    const hasEnv =
      options?.type === 'ObjectExpression' &&
      options.properties.some((p: Node) => p.key?.name === 'env' || p.type === 'SpreadElement');
    if (!hasEnv)
      findings.push({
        file: path,
        line: lineOf(start.start),
        what: `a stdio transport without env: its usp-server child does not share a shifted clock`,
      });
  }
  for (const start of starts) {
    const scope = ONE_SHOT.has(calleeName(start) ?? '') ? start : scopeOf(start);
    const startLine = lineOf(start.start);
    const visit = (n: Node) => {
      let what: string | undefined;
      if (
        n.type === 'Identifier' &&
        isFixed(n.name) &&
        !(n.parent?.type === 'MemberExpression' && n.parent.property === n)
      )
        what = n.name;
      if (n.type === 'Literal' && typeof n.value === 'string' && DATE_LITERAL.test(n.value)) what = `'${n.value}'`;
      if (n.type === 'TemplateElement' && DATE_LITERAL.test(n.value?.cooked ?? '')) what = `\`${n.value.cooked}\``;
      if (what && !seen.has(n.start)) {
        seen.add(n.start);
        findings.push({
          file: path,
          line: lineOf(n.start),
          what: `${what} in the block that starts a real-clock usp-server at line ${startLine}`,
        });
      }
      for (const c of children(n)) visit(c);
    };
    visit(scope);
  }
  return findings.sort((a, b) => a.line - b.line);
}

function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

describe('no fixed instant reaches a process on the real clock', () => {
  test('the benchmarks and the tests hand real-clock children only dates from their clock', () => {
    const files = [...filesUnder('bench', /\.mjs$/), ...filesUnder('test', /\.ts$/)];
    expect(files.length).toBeGreaterThan(100);
    const findings = files.flatMap((f) =>
      findFixedInstantsForRealClockChildren(relative(ROOT, join(ROOT, f)), readFileSync(join(ROOT, f), 'utf8')),
    );
    expect(findings.map((f) => `${f.file}:${f.line}: ${f.what}`)).toEqual([]);
  });

  test('it finds the bench module that broke on 2026-12-04 (views.mjs as it was), twice', () => {
    const broken = `
      import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
      import { ROOT, benchDate } from './lib.mjs';
      export async function run() {
        const client = new Client({ name: 'bench-views', version: '1' });
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/usp-server.js'), 'mcp', '--demo'] }));
        try {
          const q = await client.callTool({ name: 'usp_availability_query', arguments: { start_date: benchDate(3) } });
        } finally { await client.close(); }
      }`;
    expect(findFixedInstantsForRealClockChildren('bench/views.mjs', broken).map((f) => f.what)).toEqual([
      'a stdio transport without env: its usp-server child does not share a shifted clock',
      'benchDate in the block that starts a real-clock usp-server at line 6',
    ]);
  });

  test('a literal date, TEST_NOW and day() handed to a stdio child started in a hook are found; a pinned child is not', () => {
    const src = `
      import { day } from '../support/server.js';
      describe('x', () => {
        let client: Client;
        beforeAll(async () => { client = await connect(new StdioClientTransport({ command: process.execPath, args: STDIO_ARGS })); });
        test('asks', async () => {
          await client.callTool({ name: 'q', arguments: { start_date: '2026-12-04', at: TEST_NOW, d: day(2) } });
        });
      });
      test('pinned', async () => {
        const r = await runCli(['mcp'], { env: clockEnv(TEST_NOW, 'fixed') });
        expect(r.stdout).toContain('2026-12-01');
        const env = inheritedEnv(clockEnv(TEST_NOW));
        await connect(new StdioClientTransport({ command: process.execPath, args: STDIO_ARGS, env }));
        await client.callTool({ name: 'q', arguments: { start_date: day(2) } });
      });
      test('a one-shot command is checked over its arguments only', async () => {
        await book(t, p, 'svc_haircut', day(2));
        await runCli(['webhooks', 'list', '--db', db]);
        await runCli(['availability', '--date', '2026-12-03']);
      });`;
    expect(
      findFixedInstantsForRealClockChildren('test/x.test.ts', src).map((f) => `${f.line} ${f.what.split(' ')[0]}`),
    ).toEqual(['5 a', "7 '2026-12-04'", '7 TEST_NOW', '7 day', "20 '2026-12-03'"]);
  });

  test('a date from the child clock (liveDate, Date.now) is fine', () => {
    const src = `
      export async function run() {
        const t = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/usp-server.js'), 'mcp'], env: process.env });
        await client.callTool({ name: 'q', arguments: { start_date: liveDate(3), later: Date.now() + 86400000 } });
      }`;
    expect(findFixedInstantsForRealClockChildren('bench/ok.mjs', src)).toEqual([]);
  });
});
