/**
 * The composition root stays readable: no function in `src/server` (declarations, arrows, methods)
 * is longer than 80 lines, counted from its first line to its last by the parser. A function that
 * must stay longer for a while is listed with its length (none is today): none may grow, and no
 * other may pass the limit; one split below it must leave the list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { children, lineIndex, parseProgram, type Node } from './ast.js';

const ROOT = join(import.meta.dirname, '../..');
const MAX_LINES = 80;
/** Over the limit, `path name` to its length: to be split, never to grow (empty since issue 38 item 2). */
const KNOWN_LONG: Record<string, number> = {};
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every function of a file over the limit, as `path name` and its length. */
function longFunctions(path: string): Array<[string, number]> {
  const text = readFileSync(path, 'utf8');
  const line = lineIndex(text);
  const out: Array<[string, number]> = [];
  const walk = (node: Node, name: string) => {
    const named =
      node.type === 'MethodDefinition' || node.type === 'Property' || node.type === 'VariableDeclarator'
        ? (node.key?.name ?? node.id?.name ?? name)
        : name;
    if (FUNCTIONS.has(node.type)) {
      const lines = line(node.end) - line(node.start) + 1;
      if (lines > MAX_LINES) out.push([`${relative(ROOT, path)} ${node.id?.name ?? named}`, lines]);
    }
    for (const c of children(node)) walk(c, named);
  };
  walk(parseProgram(path, text), '(anonymous)');
  return out;
}

describe('src/server is made of small functions', () => {
  test(`no function in src/server passes ${MAX_LINES} lines but the known ones, and none of those grows`, () => {
    const long = Object.fromEntries(filesUnder(join(ROOT, 'src/server')).flatMap(longFunctions));
    const grown = Object.entries(long).filter(([where, lines]) => lines > (KNOWN_LONG[where] ?? MAX_LINES));
    expect(grown).toEqual([]);
    // A function split below the limit leaves the list (it keeps the list true).
    expect(Object.keys(KNOWN_LONG).filter((where) => !(where in long))).toEqual([]);
  });
});
