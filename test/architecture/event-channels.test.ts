/**
 * Channels, not named workers (issue 38, item 3): the pipeline and the sweeper hand committed writes
 * to the scope's registered channels and name none of them. Neither file imports anything of mail,
 * payments, calendars or webhooks, nor names one of them (or a worker) in code; comments may.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { children, lineIndex, parseProgram, type Node } from './ast.js';
import { parseImports } from './layering.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHANNEL = /mail|payment|calendar|webhook|dispatcher|worker|nudge/i;
const BLIND = ['src/operations/core/pipeline.ts', 'src/operations/sweep.ts', 'src/operations/core/channels.ts'];

/** The imports of a file that reach a channel's module, as `file:line specifier`. */
function channelImports(path: string, text: string): string[] {
  return parseImports({ path, text })
    .filter((i) => CHANNEL.test(i.specifier))
    .map((i) => `${i.file}:${i.line} ${i.specifier}`);
}

/** Every identifier or string of a file's code that names a channel or a worker, as `file:line name`. */
function channelNamesInCode(path: string, text: string): string[] {
  const line = lineIndex(text);
  const out: string[] = [];
  const walk = (n: Node) => {
    const said =
      n.type === 'Identifier'
        ? n.name
        : n.type === 'Literal' && typeof n.value === 'string'
          ? n.value
          : n.type === 'TemplateElement'
            ? n.value?.raw
            : undefined;
    if (typeof said === 'string' && CHANNEL.test(said)) out.push(`${path}:${line(n.start)} ${said}`);
    for (const c of children(n)) walk(c);
  };
  walk(parseProgram(path, text));
  return out;
}

describe('the pipeline and the sweeper name no channel', () => {
  for (const path of BLIND) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    test(`${path} imports nothing of mail, payments, calendars or webhooks`, () => {
      expect(channelImports(path, text)).toEqual([]);
    });
    test(`${path} names no channel or worker in code`, () => {
      expect(channelNamesInCode(path, text)).toEqual([]);
    });
  }

  test('the checks are real: the pipeline as it was (the mail queue called by name, workers woken by name) is reported', () => {
    const before = [
      "import { queueMailForEvents } from './steps/mail-messages.js';",
      '// a comment may say mail',
      'export async function run(tx, biz, events, now, scope) {',
      '  if (events.length > 0 && biz) await queueMailForEvents(tx, biz, events, now);',
      '  scope.afterCall?.();',
      '  payments.worker?.nudge();',
      '}',
    ].join('\n');
    expect(channelImports('src/operations/sample.ts', before)).toEqual([
      'src/operations/sample.ts:1 ./steps/mail-messages.js',
    ]);
    const named = channelNamesInCode('src/operations/sample.ts', before);
    expect(named).toEqual(
      expect.arrayContaining([
        'src/operations/sample.ts:4 queueMailForEvents',
        'src/operations/sample.ts:6 payments',
        'src/operations/sample.ts:6 worker',
        'src/operations/sample.ts:6 nudge',
      ]),
    );
    // The comment is not code.
    expect(named.filter((n) => n.startsWith('src/operations/sample.ts:2 '))).toEqual([]);
  });
});
