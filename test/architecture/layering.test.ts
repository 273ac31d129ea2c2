/**
 * The import rules of docs/ARCHITECTURE.md, enforced over every file of src/ by the checker in
 * layering.ts; the second half shows the checker is real on small in-memory samples.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  RULES,
  bypassedIndexes,
  doorsInServer,
  importCycles,
  parseImports,
  starExports,
  violations,
  type ImportRef,
  type LayerRule,
  type SourceFile,
} from './layering.js';

// ------------------------------------------------------------------------------------------------
// The repository
// ------------------------------------------------------------------------------------------------

const ROOT = join(import.meta.dirname, '..', '..');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = join(dir, d.name);
    if (d.isDirectory()) return walk(full);
    return /\.(ts|tsx|mts|cts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [full] : [];
  });
}

const SOURCES: SourceFile[] = walk(join(ROOT, 'src')).map((full) => ({
  path: relative(ROOT, full).split('\\').join('/'),
  text: readFileSync(full, 'utf8'),
}));
const IMPORTS: ImportRef[] = SOURCES.flatMap(parseImports);

describe('the layers of src/ import only what ARCHITECTURE.md allows', () => {
  test('the walker sees the layers and their imports', () => {
    const files = new Set(SOURCES.map((s) => s.path));
    expect(files).toContain('src/store/port.ts');
    expect(files).toContain('src/domain/records.ts');
    expect(IMPORTS).toContainEqual(
      expect.objectContaining({
        file: 'src/store/sqlite/sqlite-store.ts',
        specifier: 'better-sqlite3',
        target: { kind: 'package', name: 'better-sqlite3' },
      }),
    );
    expect(IMPORTS).toContainEqual(
      expect.objectContaining({
        file: 'src/store/sqlite/bookings.ts',
        typeOnly: true,
        target: { kind: 'src', layer: 'domain', path: 'src/domain/index.js' },
      }),
    );
  });

  for (const rule of Object.values(RULES)) {
    test(rule.name, () => {
      expect(violations(rule, IMPORTS)).toEqual([]);
    });
  }

  test('no file in src/ uses export *', () => {
    expect(starExports(IMPORTS)).toEqual([]);
  });

  test("a file imports another layer only through that layer's index.ts", () => {
    expect(bypassedIndexes(IMPORTS)).toEqual([]);
  });

  test('no file in src/ takes part in an import cycle, type-only imports included', () => {
    expect(importCycles(IMPORTS)).toEqual([]);
  });

  test('every layer of src/ has its rule (src/server, the composition root, may import everything)', () => {
    const layers = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter(
      (d) => d.isDirectory() && d.name !== 'server',
    );
    const judged = new Set(Object.values(RULES).map((r: LayerRule) => r.folder));
    expect(layers.map((d) => `src/${d.name}/`).filter((folder) => !judged.has(folder))).toEqual([]);
  });

  test('src/server holds no door: it mounts the doors of src/bindings and src/oauth, and answers only the host-level endpoints', () => {
    expect(doorsInServer(SOURCES)).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// The checker is real: it reports violations in small in-memory samples.
// ------------------------------------------------------------------------------------------------

describe('the door check is real', () => {
  test('a door written in src/server is reported; the same code in src/bindings, or in a comment, is not', () => {
    const door = "const app = new Hono();\napp.post('/registry/feed-events/:id', (c) => c.json({}));";
    expect(
      doorsInServer([
        { path: 'src/server/feeds.ts', text: door },
        { path: 'src/server/answer.ts', text: 'export const f = () => new Response("x");' },
        { path: 'src/bindings/feeds/door.ts', text: door },
        { path: 'src/server/quiet.ts', text: "/** app.post('/x') and new Response( in prose */\nexport const x = 1;" },
      ]),
    ).toEqual(['src/server/feeds.ts: new Hono', 'src/server/answer.ts: new Response(']);
  });
});

describe('the layering checker reports what breaks a rule and nothing else', () => {
  const check = (rule: LayerRule, path: string, text: string) => violations(rule, parseImports({ path, text }));

  test('a domain file importing a driver, node:fs and the store is reported with file:line and specifier', () => {
    const text = [
      "import { DateTime } from 'luxon';",
      "import type { Outcome } from './outcomes.js';",
      "import Database from 'better-sqlite3';",
      "import { readFileSync } from 'node:fs';",
      "import type { Store } from '../store/port.js';",
    ].join('\n');
    expect(check(RULES.domain, 'src/domain/bad.ts', text)).toEqual([
      "src/domain/bad.ts:3 imports 'better-sqlite3' (package better-sqlite3 is not allowed here)",
      "src/domain/bad.ts:4 imports 'node:fs' (node built-in fs is not allowed here)",
      "src/domain/bad.ts:5 imports '../store/port.js' (src/store is not allowed here)",
    ]);
  });

  test('a conformance check reaching the operations or the store is reported; the platform client is fine', () => {
    const text = [
      "import { createPopKey } from '../../client/index.js';",
      "import { argumentsDigest } from '../../security/index.js';",
      "import { OPERATIONS } from '../../operations/index.js';",
      "import type { Store } from '../../store/index.js';",
    ].join('\n');
    expect(check(RULES.conformance, 'src/conformance/checks/bad.ts', text)).toEqual([
      "src/conformance/checks/bad.ts:3 imports '../../operations/index.js' (src/operations is not allowed here)",
      "src/conformance/checks/bad.ts:4 imports '../../store/index.js' (src/store is not allowed here)",
    ]);
  });

  test('a binding reaching the store by re-export or dynamic import() is reported; operations are fine', () => {
    const text = [
      "import { OPERATIONS } from '../../operations/index.js';",
      "export { openSqliteStore } from '../../store/index.js';",
      'async function later() {',
      "  const { slotKey } = await import('../../domain/slots.js');",
      '  return slotKey;',
      '}',
    ].join('\n');
    expect(check(RULES.bindings, 'src/bindings/mcp/server.ts', text)).toEqual([
      "src/bindings/mcp/server.ts:2 exports '../../store/index.js' (src/store is not allowed here)",
      "src/bindings/mcp/server.ts:4 dynamics '../../domain/slots.js' (src/domain is not allowed here)",
    ]);
  });

  test('operations may import store types but not store values; a computed import() is never allowed', () => {
    const text = [
      "import type { Tx } from '../store/port.js';",
      "import { type Store } from '../store/index.js';",
      "import { openSqliteStore } from '../store/index.js';",
      'const m = await import(name);',
      "import { DateTime } from 'luxon';",
    ].join('\n');
    expect(check(RULES.operations, 'src/operations/x.ts', text)).toEqual([
      "src/operations/x.ts:3 imports '../store/index.js' (src/store may be imported for types only)",
      "src/operations/x.ts:4 dynamics '<computed>' (a computed specifier is not allowed here)",
      "src/operations/x.ts:5 imports 'luxon' (package luxon is not allowed here)",
    ]);
  });

  test('imports mentioned in comments and strings are not imports', () => {
    const text = [
      "// import Database from 'better-sqlite3';",
      "/* export * from '../store/index.js'; import('node:fs') */",
      "export const doc = \"import { x } from 'pg'; import('node:net')\";",
      "export const tpl = `export * from '../store/port.js'`;",
    ].join('\n');
    const imports = parseImports({ path: 'src/domain/doc.ts', text });
    expect(imports).toEqual([]);
    expect(violations(RULES.domain, imports)).toEqual([]);
  });

  test('export * and export * as ns are both reported', () => {
    const text = ["export * from './a.js';", "export { b } from './b.js';", "export * as c from './c.js';"].join('\n');
    expect(starExports(parseImports({ path: 'src/operations/index.ts', text }))).toEqual([
      "src/operations/index.ts:1 export * from './a.js'",
      "src/operations/index.ts:3 export * from './c.js'",
    ]);
  });

  test('an import cycle is reported once, type-only edges included, from its smallest file', () => {
    const imports = [
      ...parseImports({
        path: 'src/operations/pipeline.ts',
        text: "import { authenticateCall } from './authenticate.js';",
      }),
      ...parseImports({
        path: 'src/operations/authenticate.ts',
        text: "import type { Logger } from './pipeline.js';\nimport { x } from './errors.js';",
      }),
      ...parseImports({ path: 'src/operations/errors.ts', text: "import { z } from 'zod';" }),
      ...parseImports({ path: 'src/domain/a.ts', text: "import { b } from './b.js';" }),
      ...parseImports({ path: 'src/domain/b.ts', text: "import { c } from './c.js';" }),
      ...parseImports({ path: 'src/domain/c.ts', text: "export { a } from './a.js';" }),
      ...parseImports({ path: 'src/domain/self.ts', text: "import { me } from './self.js';" }),
    ];
    expect(importCycles(imports)).toEqual([
      'src/domain/a.ts -> src/domain/b.ts -> src/domain/c.ts -> src/domain/a.ts',
      'src/domain/self.ts -> src/domain/self.ts',
      'src/operations/authenticate.ts -> src/operations/pipeline.ts -> src/operations/authenticate.ts',
    ]);
  });

  test('imports that only converge are not a cycle', () => {
    const imports = [
      ...parseImports({
        path: 'src/operations/pipeline.ts',
        text: "import { a } from './authenticate.js';\nimport type { L } from './logger.js';",
      }),
      ...parseImports({ path: 'src/operations/authenticate.ts', text: "import type { L } from './logger.js';" }),
    ];
    expect(importCycles(imports)).toEqual([]);
  });

  test("reaching past another layer's index.ts is reported, by import, re-export and import(); within a layer it is not", () => {
    const text = [
      "import type { Tx } from '../../store/port.js';",
      "import { type Store } from '../../store/index.js';",
      "import { loadClaims } from '../engine/availability.js';",
      "export { slotKey } from '../../domain/slot-id.js';",
      "const rest = await import('../../bindings/rest/app.js');",
      "import { OPERATIONS } from '../index.js';",
    ].join('\n');
    expect(bypassedIndexes(parseImports({ path: 'src/operations/bookings/x.ts', text }))).toEqual([
      "src/operations/bookings/x.ts:1 imports '../../store/port.js' (use src/store/index.ts)",
      "src/operations/bookings/x.ts:4 exports '../../domain/slot-id.js' (use src/domain/index.ts)",
      "src/operations/bookings/x.ts:5 dynamics '../../bindings/rest/app.js' (use src/bindings/rest/index.ts)",
    ]);
  });

  test('the two doors are separate surfaces, and the package root is one too', () => {
    expect(
      bypassedIndexes(
        parseImports({ path: 'src/bindings/mcp/http.ts', text: "import { problemBody } from '../rest/problems.js';" }),
      ),
    ).toEqual(["src/bindings/mcp/http.ts:1 imports '../rest/problems.js' (use src/bindings/rest/index.ts)"]);
    expect(
      bypassedIndexes(
        parseImports({ path: 'src/index.ts', text: "export { createUspServer } from './server/compose.js';" }),
      ),
    ).toEqual(["src/index.ts:1 exports './server/compose.js' (use src/server/index.ts)"]);
    expect(
      bypassedIndexes(
        parseImports({ path: 'src/index.ts', text: "export { createUspServer } from './server/index.js';" }),
      ),
    ).toEqual([]);
  });

  test('a door importing another door is reported, for a type too; its own files and the web kit are fine', () => {
    const text = [
      "import { REST_ERRORS } from '../rest/index.js';",
      "import type { SessionHub } from '../mcp/index.js';",
      "import { pageShell } from './page-kit.js';",
      "import { problemResponse } from '../../web/index.js';",
    ].join('\n');
    expect(check(RULES.doors, 'src/bindings/pages/buyer-pages.ts', text)).toEqual([
      "src/bindings/pages/buyer-pages.ts:1 imports '../rest/index.js' (the pages door imports the rest door; share through src/web)",
      "src/bindings/pages/buyer-pages.ts:2 imports '../mcp/index.js' (the pages door imports the mcp door; share through src/web)",
    ]);
    expect(check(RULES.bindings, 'src/bindings/pages/buyer-pages.ts', text)).toEqual([]);
  });

  test('the core importing a door or the server is reported; so is the web kit importing a door', () => {
    const toDoor =
      "import { problemResponse } from '../bindings/rest/index.js';\nimport { createUspServer } from '../server/index.js';";
    expect(check(RULES.operations, 'src/operations/x.ts', toDoor)).toEqual([
      "src/operations/x.ts:1 imports '../bindings/rest/index.js' (src/bindings is not allowed here)",
      "src/operations/x.ts:2 imports '../server/index.js' (src/server is not allowed here)",
    ]);
    expect(check(RULES.domain, 'src/domain/x.ts', toDoor)).toHaveLength(2);
    expect(check(RULES.web, 'src/web/x.ts', toDoor)).toHaveLength(2);
    expect(check(RULES.oauth, 'src/oauth/x.ts', toDoor)).toHaveLength(2);
  });

  test('the pipeline machinery importing an operation context is reported; the business beside it and a type are fine', () => {
    const text =
      "import { cancelBooking } from '../bookings/cancel-booking.js';\nimport type { Business } from '../business.js';\n" +
      "import { x } from './errors.js';\nimport type { RegistryEnv } from '../registry/env.js';";
    expect(check(RULES.operationsCore, 'src/operations/core/pipeline.ts', text)).toEqual([
      "src/operations/core/pipeline.ts:1 imports '../bookings/cancel-booking.js' (the context src/operations/bookings/ is built on the core, not the other way round)",
    ]);
    expect(
      check(
        RULES.operationsCore,
        'src/operations/bookings/cancel-booking.ts',
        "import { y } from '../availability/holds.js';",
      ),
    ).toEqual([]);
  });

  test('a rule only judges files in its own folder', () => {
    expect(check(RULES.domain, 'src/server/compose.ts', "import Database from 'better-sqlite3';")).toEqual([]);
  });
});
