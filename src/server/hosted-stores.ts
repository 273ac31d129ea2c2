/**
 * Where a hosted business's data and definition are: its SQLite file (or PostgreSQL schema) from its
 * id, and its definition from where the operator added it. Apart from hosting.ts so that what
 * removes a business (hosted-registry.ts, the operator's desk) reads them without importing the
 * deployment that serves it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BusinessDef } from '../domain/index.js';
import type { DeploymentDirectory, HostedBusiness } from '../store/index.js';
import { loadBusinessFile, parseBusinessFile } from './business-file.js';

/** The deployment's data folder, and its PostgreSQL URL and schema prefix when the businesses live there. */
export interface HostedStoreOptions {
  dataDir: string;
  db?: string;
  schemaPrefix?: string;
  /** On PostgreSQL, every business in this one schema, keyed by business (`host serve --pg-keyed`), not a schema each. */
  pgKeyed?: string;
}

/** A business's SQLite file or PostgreSQL schema name, from its id. */
export function storeOf(opts: HostedStoreOptions, id: string): string {
  if (!opts.db) return join(opts.dataDir, 'businesses', `${id}.db`);
  const u = new URL(opts.db);
  if (opts.pgKeyed) {
    u.searchParams.set('schema', opts.pgKeyed);
    u.searchParams.set('business', id);
    return u.toString();
  }
  u.searchParams.set(
    'schema',
    `${opts.schemaPrefix ?? 'usp_'}${id.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63),
  );
  return u.toString();
}

/**
 * A hosted business's definition, from where the operator added it (its file, or the built-in demo);
 * where the file is not on this machine (another process of the deployment added it), the copy of
 * it the directory kept.
 */
export async function hostedDefinition(
  b: HostedBusiness,
  directory?: Pick<DeploymentDirectory, 'definitionOf'>,
): Promise<BusinessDef> {
  if (b.origin !== 'demo') {
    const kept = directory && !existsSync(b.origin) ? await directory.definitionOf(b.id) : undefined;
    return kept === undefined ? loadBusinessFile(b.origin) : parseBusinessFile(JSON.parse(kept), b.origin);
  }
  return parseBusinessFile(
    JSON.parse(readFileSync(new URL('./demo-business.json', import.meta.url), 'utf8')),
    'demo-business.json',
  );
}
