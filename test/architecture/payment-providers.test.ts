/**
 * The core speaks of payment modes, never of a provider: outside `src/payments/` (where each
 * adapter declares its name, checkout life, signature header and flags, and registers), no file of
 * src/ names Stripe in code: no identifier, string or template text. Comments may (they explain, and
 * a reader is helped by "a Stripe payment intent"); the CLI's flag table and help read the adapters,
 * so they need no exception. A second provider is then an adapter and one registration.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { children, lineIndex, parseProgram, type Node } from './ast.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PROVIDER = /stripe/i;

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** Every place a file names the provider in code, as `file:line text`. */
export function providerNamesInCode(path: string, text: string): string[] {
  const line = lineIndex(text);
  const out: string[] = [];
  const walk = (n: Node) => {
    const said =
      n.type === 'Identifier' || n.type === 'PrivateIdentifier'
        ? n.name
        : n.type === 'Literal' && typeof n.value === 'string'
          ? n.value
          : n.type === 'TemplateElement'
            ? n.value?.raw
            : undefined;
    if (typeof said === 'string' && PROVIDER.test(said)) out.push(`${path}:${line(n.start)} ${JSON.stringify(said)}`);
    for (const c of children(n)) walk(c);
  };
  walk(parseProgram(path, text));
  return out;
}

describe('no payment provider is named outside src/payments/', () => {
  test('the checker sees code, not comments', () => {
    const sample = "// Stripe in a comment\n/** STRIPE too */\nconst a = 'stripe';\nconst stripeKey = `x${a}Stripe`;\n";
    expect(providerNamesInCode('x.ts', sample)).toEqual(['x.ts:3 "stripe"', 'x.ts:4 "stripeKey"', 'x.ts:4 "Stripe"']);
  });

  test('src/ outside src/payments/ names no provider in code', () => {
    const found: string[] = [];
    for (const file of tsFiles(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file).split('\\').join(posix.sep);
      if (rel.startsWith('src/payments/')) continue;
      found.push(...providerNamesInCode(rel, readFileSync(file, 'utf8')));
    }
    expect(found).toEqual([]);
  });
});
