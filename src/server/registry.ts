/**
 * The composition of the discovery registry (spec 6): the same server as the business's (doors,
 * pipeline, store, authentication) serving the registry's operations, its own profile at
 * /.well-known/usp, an SSRF-safe fetcher for business profiles and catalogs, and a re-indexer that
 * keeps the index fresh and drops businesses whose profile is gone.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BusinessDef } from '../domain/index.js';
import {
  REGISTRY_OPERATIONS,
  USP_VERSION,
  reindexDue,
  seedRegistration,
  systemClock,
  type Clock,
  type Logger,
  type RegistrationInput,
  type RegistryEnv,
} from '../operations/index.js';
import { createProfileResolver, parseJsonDocument } from '../security/index.js';
import { REGISTRY_INSTRUCTIONS } from '../bindings/mcp/index.js';
import { consoleLogger, createRoleServer, type RoleServer, type RoleServerOptions } from './compose.js';
import {
  createFeedSubscriber,
  pinnedJsonPost,
  type FeedSubscriber,
  type PostJson,
} from './registry-feed-subscriber.js';
import { registryFeedDoor } from './doors.js';

/** Re-index at most this often per business by default: the spec's ceiling (spec 6.3). */
const DEFAULT_REINDEX_MS = 24 * 3600 * 1000;
/** Consecutive failed re-fetches before a registration is removed (spec 6.7). */
const DEFAULT_MAX_FAILURES = 5;

export interface RegistryServerOptions extends Omit<RoleServerOptions, 'role'> {
  /** Shown in the registry's profile. */
  name?: string;
  /** How long an index stays current (at most 24 h). */
  reindexIntervalMs?: number;
  maxFailures?: number;
  /** How often the re-indexer looks for due registrations (ms); 0 disables it. */
  reindexPollMs?: number;
  /** Replace the outbound fetch (tests). */
  fetchJson?: RegistryEnv['fetchJson'];
  /** Replace the outbound POST that subscribes to business feeds (tests). */
  postJson?: PostJson;
}

export interface RegistryServer extends RoleServer {
  env: RegistryEnv;
  /** Re-index what is due now (the timer calls it too). */
  reindexNow(): ReturnType<typeof reindexDue>;
  /** Catalog feed subscriptions at the businesses that offer them (spec 3.12.2). */
  feeds: FeedSubscriber;
}

function registryProfile(
  ctx: { baseUrl: string; mechanisms: readonly string[]; popAlgorithms: readonly string[] },
  sandbox: boolean,
): Record<string, unknown> {
  const spec = 'https://usp-protocol.dev/specification';
  return {
    usp: {
      version: USP_VERSION,
      services: {
        'dev.usp-protocol.discovery': [
          {
            version: USP_VERSION,
            transport: 'rest',
            endpoint: ctx.baseUrl,
            spec,
            schema: 'https://usp-protocol.dev/schemas/openapi/usp-rest.json',
          },
          {
            version: USP_VERSION,
            transport: 'mcp',
            endpoint: `${ctx.baseUrl}/mcp`,
            spec,
            schema: 'https://usp-protocol.dev/schemas/openrpc/usp-mcp.json',
          },
        ],
      },
      capabilities: {
        'dev.usp-protocol.discovery.registry': [
          {
            version: USP_VERSION,
            spec: `${spec}#6-discovery-registry-optional`,
            schema: 'https://usp-protocol.dev/schemas/services/registry.json',
          },
        ],
      },
    },
    authorization: {
      privileged_operations_require_authentication: true,
      accepted_mechanisms: [...ctx.mechanisms],
      registration_proof:
        'Sign the registration request (RFC 9421) with a key published in the keys of the profile at profile_url, presenting that profile_url as your profile.',
      ...(sandbox ? { sandbox: true } : {}),
    },
  };
}

export async function createRegistryServer(opts: RegistryServerOptions): Promise<RegistryServer> {
  const clock: Clock = opts.clock ?? systemClock;
  const log = opts.log ?? consoleLogger;
  const allowLoopback = Boolean(opts.security?.allowLoopbackProfiles);
  // The feed subscriber needs the server's store, keys and origin, so it is made once the server
  // is; what the registry's operations and its feed door ask of it (and of the re-indexer) they ask
  // when a request comes, through these closures.
  const env: RegistryEnv = {
    fetchJson: opts.fetchJson ?? outboundFetch(allowLoopback, clock),
    allowLoopback,
    reindexIntervalMs: Math.min(DEFAULT_REINDEX_MS, opts.reindexIntervalMs ?? DEFAULT_REINDEX_MS),
    maxFailures: opts.maxFailures ?? DEFAULT_MAX_FAILURES,
    platformProfile: () => feeds.platformProfile(),
    log: (msg, fields) => log.warn(msg, fields),
    indexed: (id, business) => feeds.indexed(id, business),
  };
  const reindex = reindexer(() => reindexDue(server.store, env, clock, log), log);
  // The registry has no business: its server is composed around its store alone, and its operations get no `biz`.
  const server = await createRoleServer({
    ...opts,
    // A registrant is a business, not a platform: its profile declares service capabilities, not
    // the registry's, so no capability negotiation against it (signatures still resolve its keys).
    security: { ...(opts.security ?? {}), fetchProfiles: false },
    webhooks: { ...(opts.webhooks ?? {}), enabled: false },
    role: {
      operations: REGISTRY_OPERATIONS,
      profile: (ctx) => registryProfile(ctx, opts.sandbox),
      env: { registry: env },
      instructions: REGISTRY_INSTRUCTIONS,
      doors: (kit) => [registryFeedDoor(kit.pipeline, kit.scopeOf, kit.clientAddress, () => reindex.kick())],
    },
  });
  const feeds = createFeedSubscriber({
    store: server.store,
    keyring: server.keyring,
    env,
    clock,
    log,
    baseUrl: () => server.origin.get(),
    post: opts.postJson ?? pinnedJsonPost(allowLoopback),
    reindex: () => reindex.kick(),
  });
  reindex.start(opts.reindexPollMs ?? 60_000);
  const close = server.close;
  return Object.assign(server, {
    env,
    reindexNow: reindex.now,
    feeds,
    async close() {
      const settled = reindex.stop();
      feeds.close();
      await settled;
      await close();
    },
  });
}

/** Business profiles and catalog pages go through the outbound rules of platform profiles, uncached. */
function outboundFetch(allowLoopback: boolean, clock: Clock): RegistryEnv['fetchJson'] {
  const fetcher = createProfileResolver({
    allowLoopback,
    minTtlSeconds: 0,
    maxTtlSeconds: 0,
    maxBytes: 4 * 1024 * 1024,
    timeoutMs: 5000,
    parse: parseJsonDocument,
    now: () => clock.now(),
  });
  return async (url) => (await fetcher.resolve(url)).raw;
}

/**
 * The re-indexer: one pass at a time, on a timer every `pollMs` (skipped while one runs) and at
 * once on a catalog event (or right after the pass in progress).
 */
function reindexer(pass: () => ReturnType<typeof reindexDue>, log: Logger) {
  let running: Promise<unknown> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const now = () => {
    const run = pass();
    running = run.catch(() => undefined);
    return run;
  };
  const kick = (): void => {
    if (running) {
      again = true;
      return;
    }
    now()
      .catch((err) => log.error('re-index failed', { error: String(err) }))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  return {
    now,
    kick,
    start(pollMs: number): void {
      if (pollMs <= 0) return;
      timer = setInterval(() => {
        if (running) return;
        now()
          .catch((err) => log.error('re-index failed', { error: String(err) }))
          .finally(() => (running = undefined));
      }, pollMs);
      timer.unref();
    },
    /** Stop the timer; resolves when the pass in progress (if any) has ended. */
    stop(): Promise<unknown> {
      if (timer) clearInterval(timer);
      return running ?? Promise.resolve();
    },
  };
}

/** The demo's businesses: stored as given (no fetching), so a newcomer can search at once. */
export async function seedDemoRegistry(
  server: RegistryServer,
  demo: BusinessDef,
  demoProfileUrl: string,
): Promise<number> {
  const now = server.clock.now();
  // Never re-indexed: their profile URLs do not serve anything.
  const never = Number.MAX_SAFE_INTEGER;
  const { publishService } = await import('../domain/index.js');
  const loc = demo.business.locations[0];
  await seedRegistration(
    server.store,
    'reg_demo_maple_pine',
    {
      profile_url: demoProfileUrl,
      deployment_mode: 'standalone',
      name: demo.business.name,
      description: 'The demo salon and studio served by `usp-server serve --demo`.',
      verticals: [...new Set(demo.services.map((s) => s.type))],
      categories: ['hair', 'beauty', 'wellness'],
      location: loc?.coordinates ? { address: loc.address, coordinates: loc.coordinates } : undefined,
      timezone: demo.business.timezone,
    },
    demo.services.map((s) => publishService(s, demo)),
    now,
    never,
  );
  let n = 1;
  for (const b of demoBusinesses()) {
    await seedRegistration(server.store, b.id, b.input, b.services, now, never);
    n++;
  }
  return n;
}

/**
 * The other demo businesses a demo registry lists beside the demo salon: data, in
 * registry-demo.json beside this file (copied to dist at build, as demo-business.json is).
 */
function demoBusinesses(): Array<{ id: string; input: RegistrationInput; services: Array<Record<string, unknown>> }> {
  return JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'registry-demo.json'), 'utf8'));
}
