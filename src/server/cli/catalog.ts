/**
 * `usp-server import` and `usp-server export`: the business file as the import and export format of
 * the definition stored in the database. An import is validated exactly as `validate` does, stores
 * the rows and republishes the catalog with its events in one transaction (a running server sees it
 * on its next call); a dry run says what would change. An export prints a file that imports back to
 * the same definition.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadBusinessFile } from '../business-file.js';
import { DEMO_BUSINESS_ID, readProvenance, recordProvenance } from '../definition-provenance.js';
import {
  catalogEvent,
  importDefinition,
  publishCatalog,
  publishedOf,
  randomIds,
  storedDefinition,
  type ImportSummary,
} from '../../operations/index.js';
import { openStore, type Store } from '../../store/index.js';
import {
  CommandError,
  DB_HELP,
  UsageError,
  dbPath,
  demoBusinessPath,
  loadBusinessFileOf,
  processClock,
  shownDb,
  type Command,
  type Flags,
} from './common.js';

const IMPORT_HELP = `usp-server import: store a business file as the business's definition

Usage:
  usp-server import FILE [--db PATH] [--dry-run]

The file is validated exactly as "usp-server validate" does (one line per problem, exit 1). Services,
resources, locations and the business's details and settings replace what the database holds; the
catalog is republished (platforms get service.created, .updated, .deleted) and running servers use
the new definition on their next call.

Options:
${DB_HELP}
  --dry-run                   print what would change and change nothing
`;

const EXPORT_HELP = `usp-server export: print the business's stored definition as a business file

Usage:
  usp-server export [--db PATH | --demo | --config FILE] [--out FILE]

Prints JSON on stdout that "usp-server import" takes back to the same definition, or writes it to
--out (replaced whole once written, so --out may name the file --config reads: that brings a business
file up to date with the edits made in the dashboard). Without --db (or $DATABASE_URL) the database
is the default one of the business --config or --demo names.

Options:
${DB_HELP}
  --out FILE                  write the file there instead of stdout
`;

function describeChange(summary: ImportSummary): string {
  const parts = [
    summary.added.length ? `added ${summary.added.join(', ')}` : '',
    summary.updated.length ? `changed ${summary.updated.join(', ')}` : '',
    summary.removed.length ? `removed ${summary.removed.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}

async function withStore<T>(db: string, fn: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = await openStore(db);
  } catch (err) {
    throw new CommandError(`cannot open the database ${shownDb(db)}: ${(err as Error).message}`);
  }
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function runImport(flags: Flags, args: string[]): Promise<number> {
  const file = args[0] ?? flags.config;
  if (!file)
    throw new UsageError(
      'Usage: usp-server import FILE [--db PATH] [--dry-run]   (usp-server import --help says more)',
    );
  const def = await loadBusinessFile(file);
  const db = dbPath(flags, def);
  const dryRun = Boolean(flags['dry-run']);
  const clock = processClock();
  const summary = await withStore(db, (store) =>
    store.transaction(async (tx) => {
      const s = await importDefinition(tx, def, dryRun);
      // The database now holds this file's definition (as of this version): a later start says which is newer.
      // (The built-in demo file imported is the demo.)
      const origin =
        resolve(file) === resolve(demoBusinessPath())
          ? ({ kind: 'demo' } as const)
          : ({ kind: 'file', file: resolve(file) } as const);
      if (!dryRun) await recordProvenance(tx, origin, s.version, clock.now());
      if (s.changed && !dryRun) {
        const now = clock.now();
        await publishCatalog(tx, publishedOf(def), now, (event, serviceId, data) =>
          tx.outbox.add(catalogEvent(randomIds, now, event, serviceId, data)),
        );
      }
      return s;
    }),
  );
  if (!summary.changed)
    console.log(
      `${file}: the database ${shownDb(db)} already holds this definition (version ${summary.version}); nothing to change`,
    );
  else if (dryRun)
    console.log(`${file}: would change ${shownDb(db)}: ${describeChange(summary)} (dry run: nothing changed)`);
  else console.log(`${file}: imported into ${shownDb(db)} (version ${summary.version}): ${describeChange(summary)}`);
  return 0;
}

async function runExport(flags: Flags): Promise<number> {
  const db =
    flags.db ??
    process.env.DATABASE_URL ??
    dbPath(flags, await loadBusinessFileOf(flags.config ? flags : { ...flags, demo: true }));
  const stored = await withStore(db, (store) => store.read((tx) => storedDefinition(tx)));
  if (!stored)
    throw new CommandError(
      `the database ${shownDb(db)} holds no business definition (usp-server import FILE stores one)`,
    );
  const text = `${JSON.stringify(stored.def, null, 2)}\n`;
  if (!flags.out) {
    process.stdout.write(text);
    return 0;
  }
  // Written beside the target and renamed over it: a failure leaves the old file whole.
  const temp = `${flags.out}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, flags.out);
  // The file and the database now say the same: a start on this file finds no difference to report.
  // (A demo's database stays the demo's: its origin is kept.)
  await withStore(db, (store) =>
    store.transaction(async (tx) => {
      const recorded = await readProvenance(tx);
      const demo = recorded ? recorded.origin === 'demo' : stored.def.business.id === DEMO_BUSINESS_ID;
      await recordProvenance(
        tx,
        demo ? { kind: 'demo' } : { kind: 'file', file: resolve(flags.out!) },
        stored.version,
        processClock().now(),
      );
    }),
  );
  console.log(`${flags.out}: written from ${shownDb(db)} (version ${stored.version})`);
  return 0;
}

export const importCommand: Command = { name: 'import', help: IMPORT_HELP, run: runImport };
export const exportCommand: Command = { name: 'export', help: EXPORT_HELP, run: (flags) => runExport(flags) };
