/**
 * Assertions that cannot fail, found by reading the tests (a real parser, so comments and strings
 * never count):
 * - a `waitFor(...)` whose result is asserted, `expect(await waitFor(...)).toBe(true)`: the wait
 *   throws on timeout (test/support/time.ts, checked below), so it is written `await waitFor(...)`,
 *   and an assertion of a result that is always true only hides that (it once answered false on
 *   timeout and a dropped result let the test go on as if the condition held);
 * - an `expect(...).resolves` / `.rejects` chain neither awaited nor returned: it is checked after
 *   the test has passed, or never;
 * - a test body that asserts nothing: no `expect`, no `assert`, and no call to a helper whose name
 *   says it asserts (`expect…`, `assert…`, `check…`, `verify…`, `must…`, `should…`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { waitFor } from '../support/time.js';
import { children, lineIndex, type Node, parseProgram } from './ast.js';

const ROOT = join(import.meta.dirname, '../..');
const TEST_CALLS = new Set(['test', 'it']);
const ASSERTING = /^(expect|assert|check|verify|must|should)/i;

function calleeName(node: Node): string | undefined {
  let c = node.callee;
  // test.skipIf(x)('name', fn), test.each(rows)('name', fn), test.concurrent('name', fn)
  while (c?.type === 'CallExpression') c = c.callee;
  if (c?.type === 'Identifier') return c.name;
  if (c?.type === 'MemberExpression') {
    let o = c;
    while (o.type === 'MemberExpression') o = o.object;
    if (o.type === 'Identifier') return o.name;
  }
  return undefined;
}

const parse = parseProgram;

/** Does this subtree assert: name `expect`/`assert`/…, or call a helper known to assert? */
function assertsIn(node: Node, helpers: ReadonlySet<string>): boolean {
  let found = false;
  const look = (n: Node) => {
    if (found) return;
    if (n.type === 'Identifier' && (ASSERTING.test(n.name) || helpers.has(n.name))) found = true;
    for (const c of children(n)) look(c);
  };
  look(node);
  return found;
}

/** Every named function in the tests and their helpers: `function f`, `const f = () =>`, methods. */
function namedFunctions(program: Node): Array<[string, Node]> {
  const out: Array<[string, Node]> = [];
  const walk = (n: Node) => {
    if (n.type === 'FunctionDeclaration' && n.id) out.push([n.id.name, n.body]);
    if (
      n.type === 'VariableDeclarator' &&
      n.id?.type === 'Identifier' &&
      (n.init?.type === 'ArrowFunctionExpression' || n.init?.type === 'FunctionExpression')
    ) {
      out.push([n.id.name, n.init.body]);
    }
    if (
      (n.type === 'MethodDefinition' || n.type === 'Property') &&
      n.key?.type === 'Identifier' &&
      (n.value?.type === 'FunctionExpression' || n.value?.type === 'ArrowFunctionExpression')
    ) {
      out.push([n.key.name, n.value.body]);
    }
    for (const c of children(n)) walk(c);
  };
  walk(program);
  return out;
}

/**
 * The names of helpers that assert, over all the files given (by name: a helper counts if any
 * function of that name asserts, directly or through another such helper).
 */
export function assertingHelpers(programs: Node[]): Set<string> {
  const fns = programs.flatMap(namedFunctions);
  const helpers = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, body] of fns) {
      if (!helpers.has(name) && assertsIn(body, helpers)) {
        helpers.add(name);
        changed = true;
      }
    }
  }
  return helpers;
}

export function findDroppedAssertions(path: string, text: string, helpers: ReadonlySet<string> = new Set()): string[] {
  const program = parse(path, text);
  return findIn(path, text, program, helpers);
}

function findIn(path: string, text: string, program: Node, helpers: ReadonlySet<string>): string[] {
  const lineOf = lineIndex(text);
  const out: string[] = [];
  const walk = (node: Node, parent: Node | null) => {
    node.parent = parent;
    if (node.type === 'ExpressionStatement') {
      const e = node.expression.type === 'AwaitExpression' ? node.expression.argument : node.expression;
      if (assertsAWait(e))
        out.push(
          `${path}:${lineOf(node.start)}: a waitFor's result is asserted (it throws on timeout: write await waitFor(..., ms, what))`,
        );
      // expect(x).resolves.toBe(y) as a bare statement
      let m = node.expression;
      while (m?.type === 'CallExpression' || m?.type === 'MemberExpression') {
        if (
          m.type === 'MemberExpression' &&
          m.property?.type === 'Identifier' &&
          (m.property.name === 'resolves' || m.property.name === 'rejects')
        ) {
          out.push(`${path}:${lineOf(node.start)}: expect(...).${m.property.name} is neither awaited nor returned`);
          break;
        }
        m = m.type === 'CallExpression' ? m.callee : m.object;
      }
    }
    if (
      node.type === 'CallExpression' &&
      TEST_CALLS.has(calleeName(node) ?? '') &&
      !(node.callee.type === 'MemberExpression' && node.callee.property?.name === 'todo')
    ) {
      const fn = node.arguments.find(
        (a: Node) => a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression',
      );
      // An empty body is a skipped suite's placeholder, which only carries the note of why.
      const placeholder = fn?.body.type === 'BlockStatement' && fn.body.body.length === 0;
      if (fn && !placeholder && !assertsIn(fn.body, helpers))
        out.push(`${path}:${lineOf(node.start)}: the test asserts nothing`);
    }
    for (const c of children(node)) walk(c, node);
  };
  walk(program, null);
  return out;
}

/** `expect(await waitFor(...)).toBe(true)` or `expect(await x.waitFor(...), why).toBe(true)`. */
function assertsAWait(e: Node | undefined): boolean {
  if (e?.type !== 'CallExpression' || e.callee.type !== 'MemberExpression') return false;
  const subject = e.callee.object;
  if (subject?.type !== 'CallExpression' || subject.callee.type !== 'Identifier' || subject.callee.name !== 'expect')
    return false;
  const awaited = subject.arguments[0]?.type === 'AwaitExpression' ? subject.arguments[0].argument : undefined;
  if (awaited?.type !== 'CallExpression') return false;
  const callee = awaited.callee;
  return (
    (callee.type === 'Identifier' && callee.name === 'waitFor') ||
    (callee.type === 'MemberExpression' && callee.property?.name === 'waitFor')
  );
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('no assertion whose result is dropped', () => {
  test('every test file', () => {
    const files = tsFiles('test').map((f) => {
      const path = relative(ROOT, join(ROOT, f));
      const text = readFileSync(join(ROOT, f), 'utf8');
      return { path, text, program: parse(path, text) };
    });
    expect(files.filter((f) => f.path.endsWith('.test.ts')).length).toBeGreaterThan(100);
    const helpers = assertingHelpers(files.map((f) => f.program));
    const found = files
      .filter((f) => f.path.endsWith('.test.ts'))
      .flatMap((f) => findIn(f.path, f.text, f.program, helpers));
    expect(found).toEqual([]);
  });

  test('the checker finds each kind (an asserted wait, an un-awaited resolves, an empty test)', () => {
    const src = `
      test('refund reaches the platform', async () => {
        const canceled = await conn.call('usp_bookings_cancel', {});
        expect(canceled.status).toBe('canceled');
        expect(await waitFor(() => conn.notifications.some((n) => n.event === 'booking.refund_issued'))).toBe(true);
      });
      test('resolves', () => {
        expect(load()).resolves.toBe(1);
      });
      test.skipIf(!PG)('nothing', async () => {
        await book();
      });
      test('fine', async () => {
        await waitFor(() => ready, 1000, 'ready');
        await expect(load()).rejects.toThrow();
        await assertNoDoubleBooking();
        rejects((f) => delete f.name, 'name', /required/);
      });
      describe.skip('why skipped', () => { test('placeholder', () => {}); });`;
    const helpers = assertingHelpers([
      parse('h.ts', 'function rejects(m, path, re) { expect(check(m)).toMatch(re); }'),
    ]);
    expect(findDroppedAssertions('test/x.test.ts', src, helpers)).toEqual([
      "test/x.test.ts:5: a waitFor's result is asserted (it throws on timeout: write await waitFor(..., ms, what))",
      'test/x.test.ts:8: expect(...).resolves is neither awaited nor returned',
      'test/x.test.ts:10: the test asserts nothing',
    ]);
  });

  test('a wait that times out throws, naming what it waited for (read at the timeout), so no test goes on past it', async () => {
    let seen = 0;
    await expect(
      waitFor(
        () => ++seen < 0,
        40,
        () => `seen ${seen > 0 ? 'some' : 'none'}`,
      ),
    ).rejects.toThrow(/^not within 40 ms: seen some$/);
    await expect(waitFor(() => false, 20)).rejects.toThrow(/not within 20 ms: the awaited condition/);
    const held = await waitFor(() => true, 20);
    expect(held).toBe(true);
  });
});
