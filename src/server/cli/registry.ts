/** `usp-server registry`: run a discovery registry (spec 6) over HTTP or stdio, or list its registrations. */
import { join } from 'node:path';
import { REGISTRY_INSTRUCTIONS, serveMcpStdio } from '../../bindings/mcp/index.js';
import { REGISTRY_OPERATIONS } from '../../operations/index.js';
import { openStore } from '../../store/index.js';
import { loadBusinessFile } from '../business-file.js';
import { consoleLogger } from '../compose.js';
import { createRegistryServer, seedDemoRegistry } from '../registry.js';
import { httpOptions } from './serve.js';
import {
  ACCESS_HELP,
  AUTH_HELP,
  UsageError,
  dataDir,
  demoBusinessPath,
  intFlag,
  securityOptions,
  shownDb,
  type Command,
  type Flags,
} from './common.js';
import { mkdirSync } from 'node:fs';

/** The registry's operations for the help, read from their rows: REST route, then MCP tool. */
const ROUTES = REGISTRY_OPERATIONS.map(
  (op) => `  ${`${op.rest.method} ${op.rest.path}`.padEnd(38)}${op.tool ?? ''}`,
).join('\n');

const HELP = `usp-server registry: run a USP discovery registry (spec section 6), or list its registrations

Usage:
  usp-server registry [--demo] [--port N] [--host H] [--db PATH] [options]
  usp-server registry --stdio [--demo] [--db PATH]     MCP over stdio, for desktop assistants
  usp-server registry list [--db PATH] [--limit N]      print every registration (operators)

Businesses register with POST /registry/businesses, proving control of their profile by signing
the request with a key their profile publishes; "usp-server serve --register-with URL" does it for
a business served by usp-server. Platforms search services and businesses. The operations, by REST
route and MCP tool:
${ROUTES}

Registry:
  --demo                      start with the demo business and a few businesses in other cities
                              (stored as given, never fetched), and in sandbox mode
  --port N                    port to listen on (default 8788, or $PORT; 0 picks a free one)
  --host H                    address to listen on (default 127.0.0.1)
  --db PATH                   SQLite file or postgres:// URL (default $DATABASE_URL, else
                              <data dir>/usp-registry.db; ':memory:' keeps nothing)
  --reindex-interval SECONDS  fetch each business's profile and catalog again after this (default
                              and maximum 86400)
  --max-failures N            remove a registration after N failed re-fetches in a row (default 5)
  --allow-loopback-profiles   development: accept http://127.0.0.1 profile URLs (loopback only)
${ACCESS_HELP}
  --allow-origin ORIGIN       a browser origin allowed on /mcp (CORS); repeatable

${AUTH_HELP}
`;

function registryDb(flags: Flags): string {
  if (flags.db) return flags.db;
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const dir = dataDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, 'usp-registry.db');
}

async function list(flags: Flags): Promise<number> {
  const store = await openStore(registryDb(flags));
  try {
    const limit = intFlag(flags, 'limit', 1) ?? 1000;
    let after = '';
    let shown = 0;
    while (shown < limit) {
      const rows = await store.read((tx) => tx.registry.list(after, Math.min(200, limit - shown)));
      if (rows.length === 0) break;
      for (const r of rows) {
        const indexed = r.last_indexed_ms ? new Date(r.last_indexed_ms).toISOString() : 'never';
        console.log(
          `${r.id}\t${r.status}\t${r.deployment_mode}\t${String(r.entry.name)}\t${r.profile_url}\tindexed ${indexed}\tfailures ${r.failures}`,
        );
      }
      shown += rows.length;
      after = rows[rows.length - 1].id;
    }
    if (shown === 0) console.log('No registrations.');
    return 0;
  } finally {
    await store.close();
  }
}

async function run(flags: Flags, args: string[]): Promise<number> {
  if (args[0] === 'list') return list(flags);
  if (args.length > 0)
    throw new UsageError(`unknown registry subcommand ${JSON.stringify(args[0])} (see usp-server registry --help)`);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  const reindex = intFlag(flags, 'reindex-interval', 1);
  if (reindex !== undefined && reindex > 86_400)
    throw new UsageError('--reindex-interval must be at most 86400 seconds (the spec re-indexes at least daily)');
  const db = flags.demo && !flags.db ? ':memory:' : registryDb(flags);
  const server = await createRegistryServer({
    db,
    sandbox,
    adminKeys: flags['admin-key'],
    security: securityOptions(flags),
    reindexIntervalMs: reindex === undefined ? undefined : reindex * 1000,
    maxFailures: intFlag(flags, 'max-failures', 1),
    ...httpOptions(flags),
  });
  if (flags.demo) {
    const demo = await loadBusinessFile(demoBusinessPath());
    const n = await seedDemoRegistry(server, demo, 'http://localhost:8787/.well-known/usp');
    consoleLogger.info(
      `demo: ${n} businesses pre-loaded (New York, Brooklyn, San Francisco, London, online); the demo salon is "usp-server serve --demo" at http://localhost:8787`,
    );
  }
  if (flags.stdio) {
    const stdio = await serveMcpStdio(
      {
        pipeline: server.pipeline,
        scope: server.scope,
        operations: REGISTRY_OPERATIONS,
        instructions: REGISTRY_INSTRUCTIONS,
      },
      server.hub,
    );
    consoleLogger.info(`registry: MCP on stdio; database: ${shownDb(db)}`);
    const stop = async () => {
      await stdio.close().catch(() => undefined);
      await server.close();
      process.exit(0);
    };
    process.stdin.once('end', stop);
    void stdio.closed.then(stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1;
  }
  const port = intFlag(flags, 'port', 0) ?? (process.env.PORT ? Number(process.env.PORT) : 8788);
  const host = flags.host ?? '127.0.0.1';
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (err) {
    await server.close();
    throw new UsageError((err as Error).message);
  }
  consoleLogger.info(`database: ${shownDb(db)}`);
  consoleLogger.info(`registry open at ${url} (REST /registry/..., MCP ${url}/mcp, profile ${url}/.well-known/usp)`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

export const registryCommand: Command = { name: 'registry', help: HELP, run };
