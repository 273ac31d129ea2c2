/**
 * Every message the server can emit (spec 9.4): each carries a severity, a code of the spec's
 * table carries the spec's severity, and each protocol error's problem type names the code its
 * body carries (an entry state conflict is not sent under the booking-state-conflict type). The
 * walk reads the source for every message builder call and every ProtocolError with a finer code.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OUTCOME_SEVERITY,
  errorMessage,
  infoMessage,
  warningMessage,
  type OutcomeCode,
} from '../../src/domain/outcomes.js';
import { ProtocolError, PROTOCOL_ERROR_CODES, type ProtocolErrorCode } from '../../src/operations/index.js';
import { TYPED_BY_DETAIL, problemBody } from '../../src/web/problems.js';
import { describeConformance, specDir } from '../support/spec.js';

const SRC = resolve(import.meta.dirname, '../../src');
const SEVERITIES = ['recoverable', 'requires_buyer_input', 'requires_buyer_review', 'unrecoverable'];

function sources(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts')) out.push({ file: p.slice(SRC.length + 1), text: readFileSync(p, 'utf8') });
  }
  return out;
}
const FILES = sources(SRC);

/** Every `errorMessage|warningMessage|infoMessage('code'` call in src, with where it is. */
const BUILDER_CALLS = FILES.flatMap(({ file, text }) =>
  [...text.matchAll(/\b(errorMessage|warningMessage|infoMessage)\(\s*'([a-z_]+)'/g)].map((m) => ({
    file,
    builder: m[1],
    code: m[2],
  })),
);

describe('every message carries a severity', () => {
  it('the walk finds the builders in use (guards the walk itself)', () => {
    expect(BUILDER_CALLS.length).toBeGreaterThan(40);
    expect(BUILDER_CALLS.map((c) => c.code)).toEqual(
      expect.arrayContaining([
        'already_in_state',
        'service_not_found',
        'slot_unavailable',
        'capabilities_incompatible',
      ]),
    );
  });

  it.each(BUILDER_CALLS)(
    '$file: $builder($code) is a code of the outcome table and gets a spec severity',
    ({ builder, code }) => {
      expect(Object.keys(OUTCOME_SEVERITY), `${code} belongs in OUTCOME_SEVERITY`).toContain(code);
      const m =
        builder === 'errorMessage'
          ? errorMessage(code as OutcomeCode, 'x')
          : builder === 'warningMessage'
            ? warningMessage(code, 'x')
            : infoMessage(code, 'x');
      expect(SEVERITIES).toContain(m.severity);
      expect(m.severity).toBe(OUTCOME_SEVERITY[code as OutcomeCode]);
    },
  );

  it('already_in_state (an info message) carries its severity', () => {
    expect(infoMessage('already_in_state', 'The booking is already canceled.').severity).toBe('recoverable');
  });

  it('no message is written as a bare object literal without a severity', () => {
    const bare: string[] = [];
    for (const { file, text } of FILES) {
      for (const m of text.matchAll(/\{\s*type: '(error|warning|info)',\s*code:/g)) {
        // The literal ends at the first brace after whitespace (a `${...}` in a template closes without one).
        const rest = text.slice(m.index!);
        const body = rest.slice(0, rest.search(/\s\}/));
        if (!/\bseverity:/.test(body)) bare.push(`${file}: ${body.slice(0, 80)}`);
      }
    }
    expect(bare).toEqual([]);
  });
});

describeConformance('codes of the spec table carry the spec severity', () => {
  it('each spec business outcome code in OUTCOME_SEVERITY has the severity of spec 9.4', () => {
    const spec = readFileSync(join(specDir!, 'specification.md'), 'utf8');
    const rows = [...spec.matchAll(/^\| `([a-z_]+)`\s*\|[^|]*\|\s*`200 OK`\s*\|\s*`([a-z_]+)`\s*\|$/gm)].map(
      (m) => [m[1], m[2]] as const,
    );
    expect(rows.length).toBeGreaterThan(15);
    for (const [code, severity] of rows) {
      if (code in OUTCOME_SEVERITY) expect(OUTCOME_SEVERITY[code as OutcomeCode], code).toBe(severity);
    }
  });
});

/** Every `new ProtocolError('code', ..., { ..., detailCode: 'finer' })` in src. */
const DETAILED = FILES.flatMap(({ file, text }) =>
  [...text.matchAll(/new ProtocolError\(\s*'([a-z_]+)'[\s\S]{0,300}?detailCode: '([a-z_]+)'/g)].map((m) => ({
    file,
    code: m[1] as ProtocolErrorCode,
    detail: m[2],
  })),
);

describe('the problem type matches the code the problem carries', () => {
  it('the walk finds the state-conflict errors (guards the walk itself)', () => {
    expect(DETAILED.map((d) => d.detail)).toEqual(
      expect.arrayContaining(['entry_state_conflict', 'dispute_state_conflict', 'subscription_not_found']),
    );
  });

  it.each(DETAILED.filter((d) => TYPED_BY_DETAIL.includes(d.code)))(
    '$file: $code / $detail is sent under the type named by its code member',
    ({ code, detail }) => {
      const body = problemBody(new ProtocolError(code, 'x', { detailCode: detail }));
      expect(body.code).toBe(detail);
      expect(body.type).toBe(`https://usp-protocol.dev/errors/${detail.replace(/_/g, '-')}`);
    },
  );

  it('an entry state conflict is entry-state-conflict, a booking one booking-state-conflict', () => {
    expect(
      problemBody(new ProtocolError('booking_state_conflict', 'x', { detailCode: 'entry_state_conflict' })).type,
    ).toBe('https://usp-protocol.dev/errors/entry-state-conflict');
    expect(
      problemBody(new ProtocolError('booking_state_conflict', 'x', { detailCode: 'booking_state_conflict' })).type,
    ).toBe('https://usp-protocol.dev/errors/booking-state-conflict');
  });

  it('without a finer code, every protocol error is typed by its own code', () => {
    // A 405 is a plain HTTP condition: RFC 9457 about:blank, no USP code (spec-next 9.1, 9.4.3).
    for (const code of PROTOCOL_ERROR_CODES.filter((c) => c !== 'method_not_allowed' && c !== 'not_found')) {
      const body = problemBody(new ProtocolError(code, 'x'));
      expect(body.type, code).toBe(`https://usp-protocol.dev/errors/${code.replace(/_/g, '-')}`);
      expect(body.code).toBe(code);
    }
  });
});

/** The outcome built inside `new MissingResource(...)`: the pinned answer, sent only to a platform of an older negotiated version (D3). */
const PINNED_ONLY = FILES.flatMap(({ text }) =>
  [...text.matchAll(/new MissingResource\(\s*errorMessage\(\s*'([a-z_]+)'/g)].map((m) => m[1]),
);

describe('a code is a business outcome or a protocol error, never both (spec-next 9.4.1)', () => {
  it('the walk finds the not-found errors of a path (guards the walk itself)', () => {
    expect(PINNED_ONLY).toEqual(expect.arrayContaining(['booking_not_found', 'entry_not_found', 'service_not_found']));
  });

  it('no outcome a platform at our version can get carries the code of a protocol error', () => {
    const errors = new Set<string>([...PROTOCOL_ERROR_CODES, ...DETAILED.map((d) => d.detail), ...PINNED_ONLY]);
    // What the payment provider's own door answers about its events is no platform's answer.
    const providerDoor = (file: string) => file.endsWith('payments/provider-events.ts');
    const both = BUILDER_CALLS.filter((c) => errors.has(c.code) && !providerDoor(c.file) && !isPinnedOnly(c));
    expect(both.map((c) => `${c.file}: ${c.code}`)).toEqual([]);
  });
});

/** A builder call that is the argument of `new MissingResource(`. */
function isPinnedOnly(c: { file: string; code: string }): boolean {
  const text = FILES.find((f) => f.file === c.file)?.text ?? '';
  return (
    new RegExp(`new MissingResource\\(\\s*errorMessage\\(\\s*'${c.code}'`).test(text) &&
    !new RegExp(`(?<!MissingResource\\(\\s*)errorMessage\\(\\s*'${c.code}'`).test(text)
  );
}
