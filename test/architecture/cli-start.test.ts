/**
 * `usp-server --help` loads none of the server (issue 38: every start loaded every adapter, 1.8 to
 * 4.5 s for the help on a loaded machine). The entry (src/server/cli.ts) and the two tables it
 * reads before a command is chosen (the commands, the flags) import at run time only Node's own
 * modules and each other; a command's module is imported with import() when it is used. The start
 * itself is measured by `npm run bench` (bench/cli-start.mjs, target under 300 ms).
 */
import { readFileSync } from 'node:fs';
import { parseSync } from 'vite';
import { describe, expect, test } from 'vitest';

const LIGHT = ['src/server/cli.ts', 'src/server/cli/commands.ts', 'src/server/cli/flags.ts'];
const ALLOWED = new Set(['./cli/commands.js', './cli/flags.js', './flags.js', './commands.js']);

/** The run-time static imports and re-exports of a file (type-only ones are erased and do not count). */
function staticRuntimeImports(path: string): string[] {
  const { module, errors } = parseSync(path, readFileSync(path, 'utf8'), { lang: 'ts', sourceType: 'module' });
  expect(errors).toEqual([]);
  const imports = module.staticImports
    .filter((i) => !(i.entries.length > 0 && i.entries.every((e) => e.isType)))
    .map((i) => i.moduleRequest.value);
  const reexports = module.staticExports.flatMap((e) =>
    e.entries.filter((x) => x.moduleRequest && !x.isType).map((x) => x.moduleRequest!.value),
  );
  return [...imports, ...reexports];
}

describe('the command line starts without loading the server', () => {
  test.each(LIGHT)('%s imports only node: modules and the command and flag tables', (path) => {
    const heavy = staticRuntimeImports(path).filter((s) => !s.startsWith('node:') && !ALLOWED.has(s));
    expect(heavy).toEqual([]);
  });

  test('the command table names each command once, and each entry imports the module that defines it', () => {
    const table = readFileSync('src/server/cli/commands.ts', 'utf8');
    const entries = [...table.matchAll(/name: '([\w-]+)',[\s\S]*?import\('\.\/([\w-]+)\.js'\)\)\.(\w+)/g)].map((m) => ({
      name: m[1],
      file: m[2],
      binding: m[3],
    }));
    expect(entries.length).toBeGreaterThan(10);
    expect(new Set(entries.map((e) => e.name)).size).toBe(entries.length);
    for (const e of entries) {
      const source = readFileSync(`src/server/cli/${e.file}.ts`, 'utf8');
      expect(source, `${e.binding} in ${e.file}.ts`).toMatch(
        new RegExp(`export const ${e.binding}: Command = \\{\\s*name: '${e.name}'`),
      );
    }
  });
});
