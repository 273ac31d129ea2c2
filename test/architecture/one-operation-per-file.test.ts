/**
 * One file per operation (docs/ARCHITECTURE.md, STYLE habit 8): every row the operations tables
 * collect (the business's and the registry's) is exported by exactly one file of src/operations,
 * and no file exports two rows. The rows are found as the tables find them: by the values a module
 * exports, so a row made by a shared factory (`subscriptionRow`, `businessMove`) counts where it is
 * exported, and a row written inline in a table, exported by no file, is reported too.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { OPERATIONS, REGISTRY_OPERATIONS, type OperationDef } from '../../src/operations/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = join(dir, d.name);
    if (d.isDirectory()) return walk(full);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** For each module, the names of the operations among its exported values (`file -> [name]`). */
export function rowsByFile(
  modules: ReadonlyMap<string, Record<string, unknown>>,
  rows: readonly OperationDef[],
): Map<string, string[]> {
  const isRow = new Set<unknown>(rows);
  const out = new Map<string, string[]>();
  for (const [file, mod] of modules) {
    const names = Object.values(mod).flatMap((v) => (isRow.has(v) ? [(v as OperationDef).name] : []));
    if (names.length > 0) out.set(file, names);
  }
  return out;
}

/** What breaks the rule: a file exporting more than one row, a row exported by no file or by two. */
export function oneOperationPerFile(
  modules: ReadonlyMap<string, Record<string, unknown>>,
  rows: readonly OperationDef[],
): string[] {
  const byFile = rowsByFile(modules, rows);
  const problems = [...byFile]
    .filter(([, names]) => names.length > 1)
    .map(([file, names]) => `${file} defines ${names.length} operations: ${names.join(', ')}`);
  for (const row of rows) {
    const files = [...byFile].filter(([, names]) => names.includes(row.name)).map(([file]) => file);
    if (files.length === 0) problems.push(`${row.name} is exported by no file of src/operations`);
    if (files.length > 1) problems.push(`${row.name} is exported by ${files.join(' and ')}`);
  }
  return problems.sort();
}

const ROWS: readonly OperationDef[] = [...OPERATIONS, ...REGISTRY_OPERATIONS];

describe('every file of src/operations that defines operations defines exactly one', () => {
  test('each row of the tables is exported by one file, and each file exports at most one row', async () => {
    const modules = new Map<string, Record<string, unknown>>();
    for (const full of walk(join(ROOT, 'src', 'operations'))) {
      modules.set(
        relative(ROOT, full).split('\\').join('/'),
        (await import(pathToFileURL(full).href)) as Record<string, unknown>,
      );
    }
    expect(rowsByFile(modules, ROWS).size).toBeGreaterThan(80);
    expect(oneOperationPerFile(modules, ROWS)).toEqual([]);
  });
});

describe('the checker reports what breaks the rule and nothing else', () => {
  const row = (name: string) => ({ name }) as OperationDef;
  const [a, b, c, d] = ['a_op', 'b_op', 'c_op', 'd_op'].map(row);

  test('two rows in one file, a row exported twice and a row in no file are reported; helpers and tables are not', () => {
    const modules = new Map<string, Record<string, unknown>>([
      ['src/operations/x/two.ts', { a, b, helper: () => 1 }],
      ['src/operations/x/c-op.ts', { c }],
      ['src/operations/x/again.ts', { c2: c }],
      ['src/operations/table.ts', { OPERATIONS: [a, b, c, d] }],
    ]);
    expect(oneOperationPerFile(modules, [a, b, c, d])).toEqual([
      'c_op is exported by src/operations/x/c-op.ts and src/operations/x/again.ts',
      'd_op is exported by no file of src/operations',
      'src/operations/x/two.ts defines 2 operations: a_op, b_op',
    ]);
  });

  test('one row per file passes', () => {
    const modules = new Map<string, Record<string, unknown>>([
      ['src/operations/x/a-op.ts', { a, A_PATH: '/a' }],
      ['src/operations/x/b-op.ts', { b }],
    ]);
    expect(oneOperationPerFile(modules, [a, b])).toEqual([]);
  });
});
