/** `usp-server serve`: run the business over HTTP (REST and MCP on one port). */
import { readFileSync } from 'node:fs';
import { offerDashboardSetup } from '../../operations/index.js';
import { isLoopbackAddress, ProxyListError, trustedProxies } from '../../security/index.js';
import { createUspServer, type ServerOptions, type UspServer } from '../compose.js';
import type { ServerLogger } from '../logging.js';
import { DEFAULT_REREGISTER_MS, createRegistrar, type Registrar } from '../register-with.js';
import {
  AUTH_HELP,
  ACCESS_HELP,
  BUSINESS_HELP,
  CACHE_HELP,
  CALENDAR_HELP,
  calendarOptions,
  DB_HELP,
  LOG_HELP,
  SETTINGS_HELP,
  CommandError,
  UsageError,
  availabilityCacheBytes,
  clockNotice,
  publicUrlNotice,
  dbPath,
  shownDb,
  intFlag,
  loadBusinessFileOf,
  originOf,
  settingsFromFlags,
  loggerFrom,
  processClock,
  shutdownTimeoutMs,
  stopOnSignals,
  securityOptions,
  webhookOptions,
  type Command,
  type Flags,
} from './common.js';
import { PAYMENTS_HELP, paymentOptions } from './payments.js';
import { MAIL_HELP, mailOptions } from './mail.js';

const HELP = `usp-server serve: run the business over HTTP (REST, and MCP at /mcp and /sse)

Usage:
  usp-server serve [--demo | --config FILE] [options]

${BUSINESS_HELP}
  --reimport                  store the file's definition over the database's (by default a database that holds
                              a definition keeps it, and the server says so when the file differs)

Server:
  --port N                    port to listen on (default 8787, or $PORT; 0 picks a free one)
  --host H                    address to listen on (default 127.0.0.1)
${DB_HELP}
  --db-connect-timeout MS     PostgreSQL: give up opening a connection after MS milliseconds (default 5000)
  --db-statement-timeout MS   PostgreSQL statement_timeout; SQLite: wait for another process's write lock (default 5000)
${ACCESS_HELP}
  --max-body-bytes N          largest accepted request body (default 65536)
  --event-retention-days N    keep webhook events in the outbox this many days after they went out (default 7);
                              expired credentials are purged as they expire
  --retention-days N          erase the people's data of bookings that ended more than N days ago (off by default)
${CACHE_HELP}
${CALENDAR_HELP}
  --tls-cert FILE --tls-key FILE   serve HTTPS directly with this PEM certificate and key
  --trust-proxy LIST          behind TLS-terminating proxies: the addresses or CIDRs they connect from, comma-separated
                              (e.g. 10.0.0.0/8,127.0.0.1); only their X-Forwarded-For/Proto/Host are believed, and
                              requests they did not mark https are refused. Bare --trust-proxy means loopback only
  --allow-origin ORIGIN       a browser origin allowed on /mcp, /sse and /messages (CORS), e.g.
                              http://localhost:6274; repeatable
  --cors-origin ORIGIN        a browser platform's origin given CORS on the REST door (* for any, then without
                              credentials); repeatable
  --headers-timeout SECONDS   a request's headers must arrive within this (default 10)
  --request-timeout SECONDS   a whole request must arrive within this (default 30)
  --keep-alive-timeout SECONDS  idle keep-alive connections are closed after this (default 5)
  --max-connections N         most connections at once (default 1000); at it a newcomer replaces the connection
                              idle the longest, or is closed when all are busy; from 90 % on, connections idle
                              1 s are closed
  --max-connections-per-address N  most connections one client address holds (default 100; a trusted proxy is
                              not capped)
  --mcp-max-sessions N        MCP sessions open at once; at it, a newcomer replaces the longest-idle
                              session of the address holding the most (default 1000)
  --mcp-max-sessions-per-address N  MCP sessions one client address may hold; over it 429 (default 100)
  --mcp-unused-session-timeout SECONDS  close a session the client never came back to after initialize (default 60)

${AUTH_HELP}

Discovery registry (spec 6):
  --register-with URL         register this business with the registry at URL once listening, signed
                              with the webhook signing key the profile publishes; again after each
                              catalog change and every --register-interval; failures are logged and
                              retried, never fatal; repeatable
  --register-interval SECONDS register again this often (default ${DEFAULT_REREGISTER_MS / 1000}; at most 86400)

Webhooks:
  --webhook-retry-first SECONDS   first retry after (default 30)
  --webhook-max-retries N         retries after the first attempt (default 3)
  --webhook-max-total SECONDS     give up after (default 900)
  --webhook-timeout SECONDS       per attempt (default 10)
  --signing-key FILE --signing-kid KID   sign webhooks with this P-256 PEM key instead of a generated one
  --key-overlap SECONDS           after a key rotation, publish the next key this long before signing with it
                                  (default 3600, at least 300: the profile's cache lifetime)

OAuth authorization server:
  --oauth-unused-client-hours N   forget a dynamically registered client that never completed a grant
                                  after N hours (default 24)

${LOG_HELP}
  /healthz, /readyz and /metrics (Prometheus) are served on the same port; /metrics is open to loopback
  peers and needs an admin API key (Authorization: Bearer KEY) from anywhere else.

${SETTINGS_HELP}

${PAYMENTS_HELP}

${MAIL_HELP}
`;

/** OAuth settings: how long a registered client that never completed a grant is kept. */
export function oauthOptions(flags: Flags): Pick<ServerOptions, 'oauth'> {
  const hours = intFlag(flags, 'oauth-unused-client-hours', 1);
  return hours === undefined ? {} : { oauth: { registration: { unusedClientTtlMs: hours * 3600_000 } } };
}

/** Listener settings: connection limits, MCP session caps, browser origins allowed on the MCP endpoints. */
export function httpOptions(
  flags: Flags,
): Pick<ServerOptions, 'allowedOrigins' | 'corsOrigins' | 'connections' | 'mcpSessions'> {
  const o: Pick<ServerOptions, 'allowedOrigins' | 'corsOrigins' | 'connections' | 'mcpSessions'> = {};
  const sessions: NonNullable<ServerOptions['mcpSessions']> = {};
  const maxSessions = intFlag(flags, 'mcp-max-sessions', 1);
  const perAddress = intFlag(flags, 'mcp-max-sessions-per-address', 1);
  const unused = intFlag(flags, 'mcp-unused-session-timeout', 1);
  if (maxSessions !== undefined) sessions.maxSessions = maxSessions;
  if (perAddress !== undefined) sessions.maxSessionsPerAddress = perAddress;
  if (unused !== undefined) sessions.unusedSessionTimeoutMs = unused * 1000;
  if (Object.keys(sessions).length > 0) o.mcpSessions = sessions;
  const connections: NonNullable<ServerOptions['connections']> = {};
  const seconds = (name: keyof Flags) => {
    const v = intFlag(flags, name, 1);
    return v === undefined ? undefined : v * 1000;
  };
  const headers = seconds('headers-timeout');
  const request = seconds('request-timeout');
  const keepAlive = seconds('keep-alive-timeout');
  const maxConnections = intFlag(flags, 'max-connections', 1);
  const perAddressConnections = intFlag(flags, 'max-connections-per-address', 1);
  if (headers !== undefined) connections.headersTimeoutMs = headers;
  if (request !== undefined) connections.requestTimeoutMs = request;
  if (keepAlive !== undefined) connections.keepAliveTimeoutMs = keepAlive;
  if (maxConnections !== undefined) connections.maxConnections = maxConnections;
  if (perAddressConnections !== undefined) connections.maxConnectionsPerAddress = perAddressConnections;
  if (Object.keys(connections).length > 0) o.connections = connections;
  if (flags['allow-origin']) o.allowedOrigins = flags['allow-origin'].map((v) => originFlag('allow-origin', v));
  if (flags['cors-origin'])
    o.corsOrigins = flags['cors-origin'].map((v) => (v === '*' ? v : originFlag('cors-origin', v)));
  return o;
}

/** A flag's value that must be a bare origin (scheme, host, port). */
function originFlag(name: string, v: string): string {
  let origin: string | undefined;
  try {
    origin = new URL(v).origin;
  } catch {
    origin = undefined;
  }
  if (!origin || origin === 'null' || origin !== v) {
    const example = 'http://localhost:6274 (scheme, host, port; no path)';
    throw new UsageError(`--${name} must be an origin such as ${example}, got ${JSON.stringify(v)}`);
  }
  return origin;
}

/** How long dispatched webhook events stay in the outbox (--event-retention-days). */
export function retentionOptions(flags: Flags): Pick<ServerOptions, 'eventRetentionMs' | 'personalDataRetentionMs'> {
  return {
    eventRetentionMs: daysMs(intFlag(flags, 'event-retention-days', 1)),
    personalDataRetentionMs: daysMs(intFlag(flags, 'retention-days', 1)),
  };
}

/** --register-with as the registries' base URLs (serve and host serve). */
export function registryUrls(flags: Flags): string[] {
  return (flags['register-with'] ?? []).map((v) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new UsageError(
        `--register-with must be a registry's base URL such as https://registry.example, got ${JSON.stringify(v)}`,
      );
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      throw new UsageError(`--register-with must be an http(s) URL, got ${JSON.stringify(v)}`);
    return v.replace(/\/$/, '');
  });
}

/** --trust-proxy as the list of proxies it names (checked here, so a typo is a usage error). */
export function proxyList(flags: Flags): string[] | undefined {
  const v = flags['trust-proxy'];
  if (v === undefined) return undefined;
  try {
    const names = trustedProxies(v).names;
    if (names.length === 0)
      throw new UsageError(
        '--trust-proxy needs the addresses or CIDRs of the proxies, e.g. --trust-proxy 10.0.0.0/8,127.0.0.1',
      );
    return [...names];
  } catch (err) {
    if (err instanceof ProxyListError) throw new UsageError(err.message);
    throw err;
  }
}

function tlsOptions(flags: Flags): { cert: Buffer; key: Buffer } | undefined {
  if (!flags['tls-cert'] && !flags['tls-key']) return undefined;
  if (!flags['tls-cert'] || !flags['tls-key']) throw new UsageError('give both --tls-cert and --tls-key');
  try {
    return { cert: readFileSync(flags['tls-cert']), key: readFileSync(flags['tls-key']) };
  } catch (err) {
    throw new UsageError(`cannot read the TLS certificate or key: ${(err as Error).message}`);
  }
}

async function run(flags: Flags): Promise<number> {
  const def = await loadBusinessFileOf(flags);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  const port = intFlag(flags, 'port', 0) ?? (process.env.PORT ? Number(process.env.PORT) : 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port ${port}`);
  const host = flags.host ?? '127.0.0.1';
  const db = dbPath(flags, def);
  const log = loggerFrom(flags);
  const shutdownMs = shutdownTimeoutMs(flags);
  const registries = registryUrls(flags);
  const reRegister = intFlag(flags, 'register-interval', 1);
  if (reRegister !== undefined && reRegister > 86_400) {
    throw new UsageError('--register-interval must be at most 86400 seconds (registries re-index at least daily)');
  }
  const registrars: Registrar[] = [];
  const server: UspServer = await createUspServer({
    ...serverOptions(flags, def, db, sandbox),
    log,
    ...registryNews(registrars, () => server),
  });
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (err) {
    await server.close();
    throw listenFailure(err as NodeJS.ErrnoException, host, port);
  }
  await announce(server, { url, host, db, sandbox, config: flags.config, log });
  for (const registryUrl of registries) {
    const r = createRegistrar({
      registryUrl,
      profileUrl: () => `${server.biz.publicUrl}/.well-known/usp`,
      business: () => server.biz.def,
      signingKey: () => server.keyring.active(server.clock.now()),
      log,
      intervalMs: reRegister === undefined ? undefined : reRegister * 1000,
    });
    registrars.push(r);
    void r.register();
  }
  stopOnSignals(
    async () => {
      for (const r of registrars) r.stop();
      return server.shutdown(shutdownMs);
    },
    log,
    shutdownMs,
  );
  return -1; // keep running
}

/** The server's options from the flags (all but the logger and the registries' news). */
function serverOptions(flags: Flags, def: ServerOptions['business'], db: string, sandbox: boolean): ServerOptions {
  const dbTimeouts = {
    connectTimeoutMs: intFlag(flags, 'db-connect-timeout', 100),
    statementTimeoutMs: intFlag(flags, 'db-statement-timeout', 100),
  };
  return {
    clock: processClock(),
    business: def,
    // The database's definition wins when it holds one (said on stderr when the file differs);
    // --reimport stores the file's.
    definition: flags.reimport ? 'import' : 'stored_first',
    definitionOrigin: originOf(flags),
    settingsOverride: settingsFromFlags(flags),
    db,
    dbTimeouts,
    sandbox,
    adminKeys: flags['admin-key'],
    maxBodyBytes: intFlag(flags, 'max-body-bytes', 1024),
    ...retentionOptions(flags),
    availabilityCacheBytes: availabilityCacheBytes(flags),
    calendars: calendarOptions(flags),
    security: securityOptions(flags),
    webhooks: webhookOptions(flags),
    trustProxy: proxyList(flags),
    tls: tlsOptions(flags),
    payments: paymentOptions(flags),
    mail: mailOptions(flags),
    ...httpOptions(flags),
    ...oauthOptions(flags),
  };
}

/** What tells the registries to register again: a new definition, or a catalog change. */
function registryNews(
  registrars: readonly Registrar[],
  server: () => UspServer,
): Pick<ServerOptions, 'onDefinitionChanged' | 'onEvents'> {
  return {
    // A new definition (the business's details, its settings) is news for every registry too.
    onDefinitionChanged: () => {
      for (const r of registrars) r.catalogChanged();
    },
    // A catalog change (a service added, changed, suspended, removed) is news for every registry.
    onEvents: (events) => {
      // An admin edit's events come before this process re-reads the definition: re-read it, then register again.
      if (events.some((e) => e.event.startsWith('service.')) && registrars.length > 0) {
        void server()
          .scope.business.refresh()
          .finally(() => {
            for (const r of registrars) r.catalogChanged();
          });
      }
    },
  };
}

/** The lines that say where the business is open and how (and the dashboard's setup link, when it has no user yet). */
async function announce(
  server: UspServer,
  at: { url: string; host: string; db: string; sandbox: boolean; config?: string; log: ServerLogger },
): Promise<void> {
  const { url, host, log } = at;
  log.info(`database: ${shownDb(at.db)}`);
  log.info(mailLine(server.mailDestination));
  const clockLine = clockNotice();
  if (clockLine) log.warn(clockLine);
  // Before the line that says where it is open, which is what a supervisor waits for.
  // A warning where people elsewhere can reach the server but not its links; listening on loopback
  // only (the demo's default), nobody elsewhere reaches it at all, so the links are as good as the
  // server and the line is information (npm start prints no warning but the sandbox's).
  if (!server.biz.publicUrlConfigured) {
    const loopbackOnly = host === 'localhost' || isLoopbackAddress(host);
    if (loopbackOnly) log.info(publicUrlNotice(url));
    else log.warn(publicUrlNotice(url));
  }
  log.info(`${server.biz.def.business.name} is open at ${url} (profile: ${url}/.well-known/usp)`);
  const base = server.biz.publicUrl || url;
  log.info(`dashboard: ${base}/admin`);
  const stdio = `npx usp-server mcp ${at.config ? `--config ${at.config}` : '--demo'}`;
  log.info(`MCP endpoint: ${base}/mcp (Streamable HTTP; over stdio: ${stdio})`);
  await offerSetup(server, base, log);
  if (at.sandbox) {
    log.warn('SANDBOX: privileged operations are accepted without platform authentication; do not use in production.');
  } else {
    const schemes = 'platform_key_pop, booking_scoped_credential, http_message_signature or api_key';
    log.info(`privileged operations require authentication: ${schemes}`);
  }
}

/** Where mail to buyers goes, as the start says it. */
function mailLine(destination: string | undefined): string {
  if (!destination) return 'mail to buyers: queued, not sent (give --smtp-url or --mail-dir)';
  if (destination.startsWith('dir:')) return `mail to buyers: written as .eml files to ${destination.slice(4)}`;
  return `mail to buyers: sent through ${destination}`;
}

/**
 * A business with no dashboard user yet: one line with a one-time link to create the owner's account
 * in the browser (its token stored hashed, replaced at each such start, 24 hours).
 */
async function offerSetup(server: UspServer, base: string, log: ServerLogger): Promise<void> {
  try {
    const offer = await offerDashboardSetup(server.store, server.clock.now());
    if (!offer) return;
    const link = `${base}/admin/setup?token=${offer.token}`;
    log.info(
      `dashboard: no account yet. ` +
        `Create the owner's account in the browser (the link works once, for 24 hours): ${link}`,
    );
  } catch (err) {
    log.warn('could not offer the dashboard setup link', { error: (err as Error).message });
  }
}

const PICK_PORT = 'stop it or pick another --port';

/**
 * Why listening failed, as the command reports it: the address being taken or not ours to use is a
 * failure at run time (exit 1); a refusal of the flags given (plain HTTP off loopback, deadlines that
 * contradict each other) is a usage error (exit 2).
 */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new CommandError(
        `cannot listen on ${where}: the address is already in use (another usp-server?); ${PICK_PORT}`,
      );
    case 'EACCES':
      return new CommandError(
        `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another --port`,
      );
    case 'EADDRNOTAVAIL':
      return new CommandError(`cannot listen on ${where}: no such address on this machine; check --host`);
    default:
      return err.code ? new CommandError(`cannot listen on ${where}: ${err.message}`) : new UsageError(err.message);
  }
}

export const serveCommand: Command = { name: 'serve', help: HELP, run };

const daysMs = (days: number | undefined): number | undefined => (days === undefined ? undefined : days * 86_400_000);
