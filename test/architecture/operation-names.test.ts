/**
 * Every per-operation fact sits on the operation's row: a door (src/bindings, src/server) never
 * names an operation by a string, so no list keyed by operation name can grow there. Strings and
 * object keys are read from a real parse, so comments never count. MCP tool names may appear only
 * in the copy a model reads (tool descriptions and result summaries naming the next tool to call).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, test } from 'vitest';
import { OPERATIONS, REGISTRY_OPERATIONS } from '../../src/operations/index.js';

interface Source {
  path: string;
  text: string;
}

/** Every string a file spells: string literals, template chunks and identifier keys of object literals. */
export function spelledStrings(src: Source): Array<{ line: number; value: string }> {
  const result = parseSync(src.path, src.text, { lang: 'ts', sourceType: 'module' });
  if (result.errors.length > 0)
    throw new Error(`${src.path} does not parse: ${result.errors.map((e) => e.message).join('; ')}`);
  const lineOf = (offset: number) => src.text.slice(0, offset).split('\n').length;
  const out: Array<{ line: number; value: string }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, any>;
    if (n.type === 'Literal' && typeof n.value === 'string') out.push({ line: lineOf(n.start), value: n.value });
    if (n.type === 'TemplateElement' && typeof n.value?.cooked === 'string')
      out.push({ line: lineOf(n.start), value: n.value.cooked });
    if (n.type === 'Property' && n.key?.type === 'Identifier' && !n.computed)
      out.push({ line: lineOf(n.key.start), value: n.key.name });
    for (const [k, v] of Object.entries(n)) if (k !== 'parent') visit(v);
  };
  visit(result.program);
  return out;
}

/** `file:line names 'op'` for each string in `src` that names one of `names` as a whole word. */
export function namedOperations(src: Source, names: readonly string[]): string[] {
  const found: string[] = [];
  for (const s of spelledStrings(src)) {
    for (const name of names) {
      if (new RegExp(`(^|[^a-z0-9_])${name}([^a-z0-9_]|$)`).test(s.value))
        found.push(`${src.path}:${s.line} names '${name}'`);
    }
  }
  return found;
}

const ROOT = join(import.meta.dirname, '..', '..');
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = join(dir, d.name);
    if (d.isDirectory()) return walk(full);
    return /\.ts$/.test(d.name) && !d.name.endsWith('.d.ts') ? [full] : [];
  });
}
const DOORS: Source[] = ['src/bindings', 'src/server'].flatMap((dir) =>
  walk(join(ROOT, dir)).map((full) => ({
    path: relative(ROOT, full).split('\\').join('/'),
    text: readFileSync(full, 'utf8'),
  })),
);
/** Every role's operations: the business's and the registry's. */
const ALL_OPERATIONS = [...OPERATIONS, ...REGISTRY_OPERATIONS];
const OPERATION_NAMES = ALL_OPERATIONS.map((o) => o.name);
const TOOL_NAMES = ALL_OPERATIONS.flatMap((o) => (o.tool ? [o.tool] : []));
/** Where a door may spell tool names: the copy a model reads (tool descriptions, result summaries pointing at the next tool). */
const TOOL_COPY = [
  'src/bindings/mcp/descriptions.ts',
  'src/bindings/mcp/summary.ts',
  'src/bindings/mcp/booking-text.ts',
  'src/bindings/mcp/terms-text.ts',
  'src/bindings/mcp/next-steps.ts',
  'src/bindings/mcp/service-card.ts',
  'src/bindings/mcp/registry-descriptions.ts',
  'src/bindings/mcp/registry-summary.ts',
];

describe('a door never names an operation: every fact about one is read from its row', () => {
  test('the doors are walked and the table has names to look for', () => {
    expect(DOORS.map((d) => d.path)).toEqual(
      expect.arrayContaining([
        'src/bindings/mcp/tools.ts',
        'src/bindings/rest/openapi.ts',
        'src/server/cli/bookings.ts',
      ]),
    );
    expect(OPERATION_NAMES.length).toBeGreaterThan(30);
    expect(OPERATION_NAMES).toEqual(expect.arrayContaining(REGISTRY_OPERATIONS.map((o) => o.name)));
  });

  test('no file in src/bindings or src/server spells an operation name', () => {
    expect(DOORS.flatMap((d) => namedOperations(d, OPERATION_NAMES))).toEqual([]);
  });

  test('every operation with an MCP tool declares its output members on its row', () => {
    expect(ALL_OPERATIONS.filter((o) => o.tool && !o.output).map((o) => o.name)).toEqual([]);
  });

  test('each CLI subcommand and each buyer page names one operation', () => {
    const clis = OPERATIONS.flatMap((o) => (o.cli ? [o.cli] : []));
    const pages = OPERATIONS.flatMap((o) => (o.page ? [o.page] : []));
    expect(new Set(clis).size).toBe(clis.length);
    expect(pages.sort()).toEqual([
      'booking_cancel',
      'booking_move',
      'booking_page',
      'booking_quote',
      'booking_slots',
      'calendar_file',
      'checkout',
      'checkout_form',
      'reminders_form',
      'subscribed_calendar',
      'waitlist_offer',
      'waitlist_offer_accept',
      'waitlist_offer_decline',
    ]);
  });

  test('MCP tool names are spelled only in the copy a model reads', () => {
    expect(DOORS.filter((d) => !TOOL_COPY.includes(d.path)).flatMap((d) => namedOperations(d, TOOL_NAMES))).toEqual([]);
  });
});

describe('the operation-name checker reports what names an operation and nothing else', () => {
  const names = ['create_booking', 'hold_slot', 'release_hold'];
  test('a literal, a template chunk, an object key and a quoted key are each reported with file:line', () => {
    const text = [
      "if (op.name === 'create_booking') x();",
      'const s = `run ${a} hold_slot now`;',
      'const MAP = { release_hold: 1 };',
      "const MAP2 = { 'hold_slot': 2 };",
    ].join('\n');
    expect(namedOperations({ path: 'src/bindings/x.ts', text }, names)).toEqual([
      "src/bindings/x.ts:1 names 'create_booking'",
      "src/bindings/x.ts:2 names 'hold_slot'",
      "src/bindings/x.ts:3 names 'release_hold'",
      "src/bindings/x.ts:4 names 'hold_slot'",
    ]);
  });
  test('comments, identifiers and longer words that contain a name are not reported', () => {
    const text = [
      '// create_booking is mentioned in a comment',
      '/* hold_slot */ const createBooking = 1;',
      "const s = 'precreate_booking and hold_slots';",
      'op.release_hold;',
    ].join('\n');
    expect(namedOperations({ path: 'src/bindings/x.ts', text }, names)).toEqual([]);
  });
});
