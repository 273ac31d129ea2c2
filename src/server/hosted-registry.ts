/**
 * A hosting deployment and the registries (`usp-server host serve --register-with URL`, issue 39
 * item 6): every business in the deployment's directory is registered with each registry, at its own
 * profile URL and signed with its own active key, as `serve --register-with` registers one business
 * (register-with.ts). The serving process reads the directory every `scanMs` (another process, `host
 * add` or `host remove`, writes it): a new business is registered then; one that left has its
 * registrars stopped and is closed. Registering composes the business through the hosting's pool
 * (the registry fetches its profile, which composes it anyway). Registrations are recorded in the
 * directory, so `host remove` can remove them while the profile is still served.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { BusinessDef } from '../domain/index.js';
import type { Logger } from '../operations/index.js';
import { type DeploymentDirectory, type HostedBusiness, deleteKeyedBusiness } from '../store/index.js';
import { createUspServer, type UspServer } from './compose.js';
import { hostedDefinition, storeOf, type HostedStoreOptions } from './hosted-stores.js';
import { createRegistrar, deregister, type Registrar } from './register-with.js';

export interface HostedRegistrationsOptions {
  /** The registries' base URLs (none: the directory is still followed, to close businesses that left). */
  registries: string[];
  directory: DeploymentDirectory;
  /** Run `fn` with the business composed (the hosting's pool). */
  use<R>(id: string, fn: (server: UspServer) => Promise<R>): Promise<R>;
  /** A business left the directory: close it. */
  closeBusiness(id: string): Promise<void>;
  log: Logger;
  /** Re-register this often (ms; default register-with's). */
  intervalMs?: number;
  /** Read the directory this often (ms; default 5 s; 0: only when `scan` is called). */
  scanMs?: number;
}

export interface HostedRegistrations {
  /** Read the directory now: register the businesses new to it, let go of those that left. */
  scan(): Promise<void>;
  /** A business's catalog or definition changed: register it again shortly. */
  catalogChanged(id: string): void;
  stop(): void;
}

interface Snapshot {
  def: BusinessDef;
  profileUrl: string;
  key: ReturnType<UspServer['keyring']['active']>;
}

export function followDirectory(o: HostedRegistrationsOptions): HostedRegistrations {
  const tracked = new Map<string, Registrar[]>();
  let stopped = false;
  const registrarsOf = (b: HostedBusiness): Registrar[] => {
    let snap: Snapshot | undefined;
    const prepare = () =>
      o.use(b.id, async (server) => {
        await server.scope.business.refresh();
        snap = {
          def: server.biz.def,
          profileUrl: `${server.biz.publicUrl}/.well-known/usp`,
          key: server.keyring.active(server.clock.now()),
        };
      });
    return o.registries.map((registryUrl) =>
      createRegistrar({
        registryUrl,
        prepare,
        profileUrl: () => snap!.profileUrl,
        business: () => snap!.def,
        signingKey: () => snap!.key,
        onRegistered: (regId) =>
          void Promise.resolve(o.directory.recordRegistration(b.id, registryUrl, regId, snap!.profileUrl)).catch(
            (err) =>
              o.log.warn('could not record a registration in the deployment directory', {
                business: b.id,
                registry: registryUrl,
                error: String(err),
              }),
          ),
        log: withBusiness(o.log, b.id),
        intervalMs: o.intervalMs,
      }),
    );
  };
  let scanning: Promise<void> | undefined;
  const scanOnce = async (): Promise<void> => {
    const now = new Map(o.directory.list().map((b) => [b.id, b]));
    for (const [id, registrars] of [...tracked]) {
      if (now.has(id)) continue;
      tracked.delete(id);
      for (const r of registrars) r.stop();
      o.log.info('business removed from the deployment', { business: id });
      await o.closeBusiness(id);
    }
    for (const b of now.values()) {
      if (tracked.has(b.id) || stopped) continue;
      const registrars = registrarsOf(b);
      tracked.set(b.id, registrars);
      for (const r of registrars) void r.register();
    }
  };
  const scan = () => {
    scanning ??= scanOnce().finally(() => {
      scanning = undefined;
    });
    return scanning;
  };
  const timer =
    o.scanMs === 0
      ? undefined
      : setInterval(
          () => void scan().catch((err) => o.log.error('could not read the directory', { error: String(err) })),
          o.scanMs ?? 5_000,
        );
  timer?.unref();
  return {
    scan,
    catalogChanged: (id) => {
      for (const r of tracked.get(id) ?? []) r.catalogChanged();
    },
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
      for (const rs of tracked.values()) for (const r of rs) r.stop();
    },
  };
}

export interface RemovalReport {
  /** The registries that removed the registration, and those that could not be told. */
  told: string[];
  untold: string[];
}

/**
 * `host remove`: the business's registrations removed (signed with its key, while a serving process
 * still serves its profile), then the business out of the directory (its names freed), then its store
 * deleted (its SQLite file, or its PostgreSQL schema dropped). An export, when asked, comes first and
 * is a consistent copy of its SQLite database (`VACUUM INTO`), taken while it may be serving.
 */
/**
 * A hosted business's data as one file: its SQLite database copied with `VACUUM INTO` (consistent
 * while it serves). The copy must not exist yet. On PostgreSQL there is none: the schema is dumped.
 */
export function exportHostedStore(o: HostedStoreOptions, id: string, to: string): void {
  if (o.db)
    throw new Error(
      'an export is a copy of the SQLite file; on PostgreSQL dump the schema first (pg_dump --schema=...)',
    );
  const source = new Database(storeOf(o, id), { readonly: true, fileMustExist: true });
  try {
    source.prepare('VACUUM INTO ?').run(to);
  } finally {
    source.close();
  }
}

export async function removeHostedBusiness(
  o: HostedStoreOptions & { directory: DeploymentDirectory; log: Logger; exportTo?: string },
  b: HostedBusiness,
): Promise<RemovalReport> {
  const store = storeOf(o, b.id);
  if (o.exportTo) exportHostedStore(o, b.id, o.exportTo);
  const report: RemovalReport = { told: [], untold: [] };
  const registrations = o.directory.registrationsOf(b.id);
  if (registrations.length > 0) {
    const server = await createUspServer({
      business: await hostedDefinition(b, o.directory),
      definition: 'stored_first',
      db: store,
      sandbox: true,
      sweepIntervalMs: 0,
      log: o.log,
      webhooks: { enabled: false },
    });
    try {
      const key = server.keyring.active(Date.now());
      for (const r of registrations) {
        const ok = await deregister({
          registryUrl: r.registry,
          registrationId: r.registrationId,
          profileUrl: r.profileUrl,
          signingKey: key,
          log: o.log,
        });
        (ok ? report.told : report.untold).push(r.registry);
      }
    } finally {
      await server.close();
    }
  }
  await o.directory.remove(b.id);
  if (o.db) {
    const schema = new URL(store).searchParams.get('schema')!;
    const client = new pg.Client({ connectionString: o.db });
    await client.connect();
    try {
      // Keyed, the business is rows in the shared schema; else the schema is its own.
      if (o.pgKeyed) await deleteKeyedBusiness(client, o.pgKeyed, b.id);
      else await client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
    } finally {
      await client.end();
    }
  } else {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${store}${suffix}`, { force: true });
  }
  return report;
}

function withBusiness(log: Logger, business: string): Logger {
  return {
    debug: (m, f) => log.debug?.(m, { business, ...f }),
    info: (m, f) => log.info(m, { business, ...f }),
    warn: (m, f) => log.warn(m, { business, ...f }),
    error: (m, f) => log.error(m, { business, ...f }),
  };
}
