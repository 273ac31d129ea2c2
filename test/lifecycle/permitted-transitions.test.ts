/**
 * The newer protocol text's permitted-transitions table (spec-next 5.1.1), read from
 * ../shared/usp-spec-next, against our transition map: every cell that says the operation is
 * legal (Yes, SHOULD, MAY, idempotent) is permitted by us, every `No` is refused. Skipped, with a
 * note, when the newer text is not there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { operationPermitted, type BookingOperation, type BookingStatus } from '../../src/domain/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const specFile = path.resolve(repoRoot, process.env.USP_SPEC_NEXT_DIR ?? '../shared/usp-spec-next', 'specification.md');
const text = fs.existsSync(specFile) ? fs.readFileSync(specFile, 'utf8') : null;
if (!text) console.warn(`[permitted-transitions] ${specFile} not found: the spec-next 5.1.1 comparison is skipped`);

const COLUMN: Record<string, BookingOperation> = {
  confirm: 'confirm',
  cancel: 'cancel',
  reschedule: 'reschedule',
  'confirm-payment': 'confirm_payment',
  update: 'update',
};

/** The table of section 5.1.1 as rows of [status, operation, cell]. */
function permittedTable(spec: string): Array<[BookingStatus, BookingOperation, string]> {
  const start = spec.indexOf('#### 5.1.1');
  const section = spec.slice(start, spec.indexOf('\n### ', start));
  const lines = section.split('\n').filter((l) => l.trim().startsWith('|'));
  const cells = (l: string) =>
    l
      .trim()
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim().replace(/`/g, ''));
  const header = cells(lines[0])
    .slice(1)
    .map((h) => COLUMN[h]);
  const out: Array<[BookingStatus, BookingOperation, string]> = [];
  for (const l of lines.slice(2)) {
    const [status, ...row] = cells(l);
    row.forEach((cell, i) => out.push([status as BookingStatus, header[i], cell]));
  }
  return out;
}

describe.skipIf(!text)('our booking transition map matches the permitted-transitions table of spec-next 5.1.1', () => {
  const table = text ? permittedTable(text) : [];
  test('the table is read whole: seven statuses by five operations, every column one of ours', () => {
    expect(table).toHaveLength(35);
    expect(new Set(table.map(([, op]) => op))).toEqual(new Set(Object.values(COLUMN)));
    expect(new Set(table.map(([s]) => s))).toEqual(
      new Set(['pending', 'requires_action', 'confirmed', 'in_progress', 'completed', 'no_show', 'canceled']),
    );
  });
  test('every cell that is not No is permitted, every No is refused', () => {
    const ours = table.map(([s, op, cell]) => `${s} ${op}: ${cell === 'No' ? 'No' : 'permitted'}`);
    const theirs = table.map(([s, op]) => `${s} ${op}: ${operationPermitted(s, op) ? 'permitted' : 'No'}`);
    expect(theirs).toEqual(ours);
  });
});
