/**
 * The composition root assigns nothing after construction (issue 38, item 2): its phases (the core,
 * the business role, another role, the host and listener) and the ports they wire declare no `let`,
 * so no part is filled in later behind the back of a part that already holds it. What is needed
 * before it exists is built in the right order or read through a closure when a request comes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { children, lineIndex, parseProgram, type Node } from './ast.js';

const SERVER = join(import.meta.dirname, '../../src/server');
const COMPOSITION = [...readdirSync(SERVER).filter((f) => /^compose(-[a-z]+)?\.ts$/.test(f)), 'frontdesk-wiring.ts'];

/** Every `let` of a file, as `file:line`. */
function lets(file: string): string[] {
  const text = readFileSync(join(SERVER, file), 'utf8');
  const line = lineIndex(text);
  const out: string[] = [];
  const walk = (node: Node) => {
    if (node.type === 'VariableDeclaration' && node.kind === 'let') out.push(`${file}:${line(node.start)}`);
    for (const c of children(node)) walk(c);
  };
  walk(parseProgram(file, text));
  return out;
}

describe('the composition root is composed in phases, nothing reassigned', () => {
  test('the phases are the files the check reads', () => {
    expect(COMPOSITION).toEqual(
      expect.arrayContaining(['compose.ts', 'compose-core.ts', 'compose-business.ts', 'compose-role.ts']),
    );
  });

  test('no phase of the composition declares a variable it assigns later', () => {
    expect(COMPOSITION.flatMap(lets)).toEqual([]);
  });
});
