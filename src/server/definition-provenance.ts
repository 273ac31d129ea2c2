/**
 * Where a database's business definition came from, and what a start may say about it. The database
 * records its provenance when a definition is imported (at the first start, by `usp-server import`,
 * by `serve --reimport`): the built-in demo or a file (its absolute path), the definition version the
 * import made and when. Two rules follow:
 *
 * - A database made by the demo serves only the demo, and one made from a file never the demo: the
 *   demo's id names the demo's database (`<data dir>/biz_maple_pine.db`), so a copy of the demo file
 *   that keeps the id would otherwise open the demo's bookings under the owner's name (and `--demo`
 *   would open the owner's bookings as a sandbox). A database from before provenance was recorded
 *   that holds the demo's id counts as the demo's.
 * - When the file differs from the stored definition, the start says which is newer (edits in the
 *   dashboard or the admin API bumped the version after the import; or the file changed since) and
 *   offers what keeps the newer: `usp-server export --out FILE` after edits, `usp-server import` when
 *   only the file changed; never an action that discards edits.
 */
import type { Tx } from '../store/index.js';
import { shownDb } from './shown-db.js';

export const DEMO_BUSINESS_ID = 'biz_maple_pine';
const KEY = 'definition_provenance';

/** Where the definition a process was given comes from. */
export type DefinitionOrigin = { kind: 'demo' } | { kind: 'file'; file: string };

export interface Provenance {
  origin: 'demo' | 'file';
  /** The file's absolute path, for a file. */
  file?: string;
  /** The definition version the import made. */
  version: number;
  /** When (ISO 8601). */
  at: string;
}

export async function readProvenance(tx: Tx): Promise<Provenance | undefined> {
  const raw = await tx.kv.get(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Provenance;
  } catch {
    return undefined;
  }
}

export async function recordProvenance(
  tx: Tx,
  origin: DefinitionOrigin,
  version: number,
  nowMs: number,
): Promise<void> {
  const p: Provenance = {
    origin: origin.kind,
    ...(origin.kind === 'file' ? { file: origin.file } : {}),
    version,
    at: new Date(nowMs).toISOString(),
  };
  await tx.kv.set(KEY, JSON.stringify(p));
}

/** Why a database may not serve the definition given, in words (undefined: it may). */
export function provenanceClash(o: {
  recorded: Provenance | undefined;
  storedId: string | undefined;
  givenId: string;
  given: DefinitionOrigin;
  db: string;
}): string | undefined {
  const recordedOrigin = o.recorded?.origin ?? (o.storedId === DEMO_BUSINESS_ID ? 'demo' : undefined);
  const db = shownDb(o.db);
  if (o.given.kind === 'file' && recordedOrigin === 'demo') {
    return (
      `the database ${db} belongs to the built-in demo (made by --demo or npm start, with the demo's bookings), ` +
      (o.givenId === DEMO_BUSINESS_ID
        ? `and ${o.given.file} keeps the demo's business id "${DEMO_BUSINESS_ID}", which names that database. `
        : `and ${o.given.file} (business "${o.givenId}") was pointed at it. `) +
      `Give your business an id of its own in the file ("business": { "id": "biz_your_name", ... }), or write a new file with ` +
      '`npx usp-server init`; or give --db for a database of its own.'
    );
  }
  if (o.given.kind === 'demo' && recordedOrigin === 'file') {
    return (
      `the database ${db} holds the business imported from ${o.recorded?.file ?? 'a business file'}, not the demo: ` +
      `--demo would serve that business's bookings as a sandbox. Give --db another path for the demo, or serve the file with --config.`
    );
  }
  return undefined;
}

/** What a start says when the file given differs from the stored definition: which is newer, and what keeps it. */
export function differsAdvice(o: {
  recorded: Provenance | undefined;
  storedVersion: number;
  given: DefinitionOrigin;
  db: string;
}): string {
  const db = shownDb(o.db);
  const file = o.given.kind === 'file' ? o.given.file : 'the demo file';
  const exportCmd = `npx usp-server export --db ${db} --out ${o.given.kind === 'file' ? o.given.file : 'business.json'}`;
  const r = o.recorded;
  if (r && o.storedVersion > r.version) {
    return (
      `the database's business definition was edited (in the dashboard or the admin API) after ${r.file ?? 'the file'} was imported on ${r.at}, ` +
      `so the database's (version ${o.storedVersion}) is newer than ${file} and is the one used. ` +
      `To bring the file up to date with those edits: ${exportCmd}`
    );
  }
  if (r) {
    return (
      `${file} was changed after it was imported on ${r.at}; the database still holds that import (version ${o.storedVersion}) and it is the one used. ` +
      `To use the file's changes (nothing was edited in the database since): npx usp-server import ${file} --db ${db} (add --dry-run to see what changes)`
    );
  }
  return (
    `${file} differs from the business definition in the database ${db}, which is the one used (the database does not record which is newer). ` +
    `To bring the file up to date: ${exportCmd}; to see what the file would change: npx usp-server import ${file} --db ${db} --dry-run`
  );
}
