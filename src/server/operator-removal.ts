/**
 * Export then delete, for the operator (the desk's `exportBusiness` and `remove`): the export is the
 * one `host remove --export` makes (exportHostedStore: the business's SQLite database, copied while
 * it serves), kept as `<data>/exports/<id>.db` and answered as a download; a delete is refused until
 * that export was taken, unless the operator confirms deleting without one. The delete is
 * `host remove`'s (removeHostedBusiness): registrations withdrawn, names freed, store deleted. The
 * export file stays in the data folder, the only copy of what the business held.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorRefusal } from '../bindings/operator/index.js';
import type { Logger } from '../operations/index.js';
import type { DeploymentDirectory } from '../store/index.js';
import { exportHostedStore, removeHostedBusiness } from './hosted-registry.js';
import type { BusinessPool } from './hosted-pool.js';
import type { UspServer } from './options.js';

export interface RemovalDeps {
  directory: DeploymentDirectory;
  pool: BusinessPool<UspServer>;
  dataDir: string;
  db?: string;
  schemaPrefix?: string;
  pgKeyed?: string;
  log: Logger;
}

// An id names a file here only through letters, digits, _ and -: none reaches outside the folder.
const exportFile = (d: RemovalDeps, id: string) =>
  join(d.dataDir, 'exports', `${id.replace(/[^A-Za-z0-9_-]/g, '_')}.db`);

/** The business's data now, as a SQLite database (kept under `<data>/exports/`, replacing an earlier one). */
export async function exportBusiness(d: RemovalDeps, id: string): Promise<Uint8Array> {
  if (d.db)
    throw new OperatorRefusal(
      'conflict',
      d.pgKeyed
        ? `on PostgreSQL keyed by business there is no export yet: the business's rows are those of ${d.pgKeyed} with business_id '${id}' (COPY each table's); delete with {"confirm": true} once they are kept.`
        : `on PostgreSQL the export is a dump of the business's schema (pg_dump --schema=...); delete with {"confirm": true} once it is taken.`,
    );
  const file = exportFile(d, id);
  mkdirSync(join(d.dataDir, 'exports'), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  // Loaded so that its store exists (a business never opened has no file yet); VACUUM INTO reads it consistently while it serves.
  await d.pool.use(id, async () => exportHostedStore(d, id, partial));
  renameSync(partial, file);
  d.log.info('operator exported a business', { business: id, file });
  return readFileSync(file);
}

/** The business removed from the deployment: refused without its export unless confirmed. */
export async function removeBusiness(
  d: RemovalDeps,
  id: string,
  confirm: unknown,
): Promise<{ removed: string; freed_hosts: string[]; export?: string }> {
  const b = d.directory.get(id);
  if (!b) throw new OperatorRefusal('not_found', `No hosted business has the id ${JSON.stringify(id)}.`);
  if (confirm !== undefined && typeof confirm !== 'boolean')
    throw new OperatorRefusal('invalid', 'confirm is true or false.');
  // An export left by an earlier business of the same id is not this one's.
  const exported = existsSync(exportFile(d, id)) && statSync(exportFile(d, id)).mtimeMs >= b.addedAt;
  if (!exported && confirm !== true)
    throw new OperatorRefusal(
      'conflict',
      `take the export of ${id} first (GET /businesses/${id}/export), or confirm deleting it without one ({"confirm": true}).`,
    );
  // Closed first, so that its store is not open while it is deleted; and again after, for a request that came meanwhile.
  await d.pool.close(id);
  await removeHostedBusiness(
    {
      directory: d.directory,
      dataDir: d.dataDir,
      db: d.db,
      schemaPrefix: d.schemaPrefix,
      pgKeyed: d.pgKeyed,
      log: d.log,
    },
    b,
  );
  await d.pool.close(id);
  d.log.info('operator deleted a business', { business: id, exported });
  return { removed: id, freed_hosts: b.hosts, ...(exported ? { export: exportFile(d, id) } : {}) };
}
