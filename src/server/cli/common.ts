/**
 * What the usp-server commands share: the parsed flags, the errors that end a command, loading the
 * business (with the settings flags applied), the database to open, and the help sections several
 * commands print (the flag table itself, OPTIONS, is in ./flags.ts and re-exported here).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { BusinessDef } from '../../domain/index.js';
import { CLOCK_VARIABLE, clockFromSetting, type Clock } from '../../operations/index.js';
import { loadBusinessFile, parseBusinessFile } from '../business-file.js';
import { createUspServer, type ServerOptions } from '../compose.js';
import type { DefinitionOrigin } from '../definition-provenance.js';
import { LOG_LEVELS, createLogger, type LogFormat, type LogLevel, type ServerLogger } from '../logging.js';
import type { SecurityOptions } from '../security-wiring.js';
import { PROFILE_CACHE_SECONDS } from '../../webhooks/index.js';

import { CommandError, UsageError, type Flags } from './flags.js';

// The flag table and the command shape live in ./flags.ts, which loads nothing (`usp-server --help` reads them).
export { CommandError, OPTIONS, UsageError, type Command, type Flags } from './flags.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export function demoBusinessPath(): string {
  // dist/server/demo-business.json and src/server/demo-business.json (copied at build) sit one level up.
  return join(HERE, '..', 'demo-business.json');
}

export function intFlag(flags: Flags, name: keyof Flags, min: number): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`--${String(name)} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

/** The business file --config or --demo names, as written (the settings flags not applied). */
export async function loadBusinessFileOf(flags: Flags): Promise<BusinessDef> {
  if (flags.demo && flags.config) throw new UsageError('give either --demo or --config FILE, not both');
  if (flags.config) return loadBusinessFile(flags.config);
  if (flags.demo) return parseBusinessFile(JSON.parse(readFileSync(demoBusinessPath(), 'utf8')), 'demo-business.json');
  throw new UsageError('give --demo or --config FILE (see --help)');
}

/** Where the command's business comes from: the file of --config (its absolute path), else the built-in demo. */
export function originOf(flags: Flags): DefinitionOrigin {
  return flags.config ? { kind: 'file', file: resolve(flags.config) } : { kind: 'demo' };
}

/** The settings the command line overrides (--hold-ttl, --public-url, ...), over whichever definition is used. */
export function settingsFromFlags(flags: Flags): Partial<BusinessDef['settings']> {
  const s: Partial<BusinessDef['settings']> = {};
  const set = <K extends keyof typeof s>(k: K, v: (typeof s)[K] | undefined) => {
    if (v !== undefined) s[k] = v;
  };
  set('hold_ttl_seconds', intFlag(flags, 'hold-ttl', 1));
  set('payment_ttl_seconds', intFlag(flags, 'payment-ttl', 1));
  set('payment_due_before_start_seconds', intFlag(flags, 'payment-due-before-start', 0));
  set('payment_min_window_seconds', intFlag(flags, 'payment-min-window', 1));
  set('manual_confirmation_ttl_seconds', intFlag(flags, 'manual-confirmation-ttl', 1));
  set('waitlist_offer_ttl_seconds', intFlag(flags, 'waitlist-offer-ttl', 1));
  set('max_query_days', intFlag(flags, 'max-query-days', 1));
  set('max_active_holds_per_buyer', intFlag(flags, 'max-holds', 1));
  set('max_waitlist_entries', intFlag(flags, 'max-waitlist', 1));
  set('reminder_offset_seconds', intFlag(flags, 'reminder-offset', 0));
  if (flags['public-url'] !== undefined) {
    try {
      new URL(flags['public-url']);
    } catch {
      throw new UsageError(`--public-url must be an absolute URL, got ${JSON.stringify(flags['public-url'])}`);
    }
    s.public_url = flags['public-url'];
  }
  if (flags['checkout-url'] !== undefined) s.checkout_url_template = flags['checkout-url'];
  return s;
}

export function securityOptions(flags: Flags): SecurityOptions {
  const o: SecurityOptions = {};
  if (flags['allow-loopback-profiles']) o.allowLoopbackProfiles = true;
  if (flags['require-pop-nonce']) o.requireNonce = true;
  if (flags['allow-es256']) o.allowEs256 = true;
  if (flags['profile-uri']) o.profileUris = flags['profile-uri'];
  if (flags['profile-allowlist']) o.profileAllowlist = flags['profile-allowlist'];
  if (flags['rate-limit']) {
    const limits: Record<string, number> = {};
    for (const v of flags['rate-limit']) {
      const m = /^(public|reads|holds|bookings|registrations|registrations_total)=(\d+)$/.exec(v);
      if (!m)
        throw new UsageError(
          `--rate-limit takes CLASS=N with CLASS one of public, reads, holds, bookings, registrations, registrations_total and N tokens per minute, got ${JSON.stringify(v)}`,
        );
      limits[m[1]] = Number(m[2]);
    }
    o.rateLimits = limits;
  }
  if (flags['no-rate-limit']) o.rateLimits = false;
  return o;
}

/** --availability-cache-mb in bytes (undefined: the default), 0 with --no-availability-cache. */
export function availabilityCacheBytes(flags: Flags): number | undefined {
  if (flags['no-availability-cache']) return 0;
  const mb = intFlag(flags, 'availability-cache-mb', 0);
  return mb === undefined ? undefined : mb * 1024 * 1024;
}

/** --calendar-poll-seconds (undefined: the default, 300), --calendar-stale-hours (default 24) and --calendar-max-events (default 10,000). */
export function calendarOptions(flags: Flags): NonNullable<ServerOptions['calendars']> {
  const s = intFlag(flags, 'calendar-poll-seconds', 5);
  const stale = intFlag(flags, 'calendar-stale-hours', 1);
  const events = intFlag(flags, 'calendar-max-events', 1);
  return {
    ...(s === undefined ? {} : { pollSeconds: s }),
    ...(stale === undefined ? {} : { staleHours: stale }),
    ...(events === undefined ? {} : { limits: { maxEvents: events } }),
  };
}

export const CALENDAR_HELP = `  --calendar-poll-seconds N   how often the resources' calendars are read for busy times (default 300, at least 5)
  --calendar-stale-hours N    hours without a good read after which a calendar is stale: the profile's health
                              says degraded, /metrics and the dashboard say stale (default 24, at least 1)
  --calendar-max-events N     events one calendar may hold: a calendar with more is not read (its last busy
                              times kept, the failure on the dashboard, /metrics and, once stale, the
                              profile's health; default 10000)`;

export const CACHE_HELP = `  --availability-cache-mb N   memory for computed availability answers reused while still exact (default 32; 0 = off)
  --no-availability-cache     compute every availability query afresh`;

export function webhookOptions(flags: Flags): NonNullable<ServerOptions['webhooks']> {
  const o: NonNullable<ServerOptions['webhooks']> = { retry: {} };
  const first = intFlag(flags, 'webhook-retry-first', 0);
  const retries = intFlag(flags, 'webhook-max-retries', 0);
  const total = intFlag(flags, 'webhook-max-total', 0);
  const timeout = intFlag(flags, 'webhook-timeout', 1);
  if (first !== undefined) o.retry!.firstRetryMs = first * 1000;
  if (retries !== undefined) o.retry!.maxRetries = retries;
  if (total !== undefined) o.retry!.maxTotalMs = total * 1000;
  if (timeout !== undefined) o.timeoutMs = timeout * 1000;
  const overlap = intFlag(flags, 'key-overlap', PROFILE_CACHE_SECONDS);
  if (overlap !== undefined) o.keyOverlapMs = overlap * 1000;
  if (flags['signing-key'] || flags['signing-kid']) {
    if (!flags['signing-key'] || !flags['signing-kid'])
      throw new UsageError('give both --signing-key FILE and --signing-kid KID');
    try {
      o.signingKey = { kid: flags['signing-kid'], pem: readFileSync(flags['signing-key'], 'utf8') };
    } catch (err) {
      throw new UsageError(`cannot read the signing key: ${(err as Error).message}`);
    }
  }
  return o;
}

/**
 * Where databases live when no --db or $DATABASE_URL names one: a per-user data directory
 * ($XDG_DATA_HOME/usp-server, else ~/.local/share/usp-server), never the working directory, which
 * for a desktop assistant is wherever the assistant happens to run.
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG base directory spec: a relative $XDG_DATA_HOME is invalid and ignored.
  const base =
    env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'usp-server');
}

/** --db, else $DATABASE_URL, else <data dir>/<business id>.db (the directory is created, private to the user). */
export function dbPath(flags: Flags, def: BusinessDef): string {
  if (flags.db) return flags.db;
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const dir = dataDir();
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new CommandError(`cannot create the data directory ${dir}: ${(err as Error).message} (give --db PATH)`);
  }
  return join(dir, `${def.business.id}.db`);
}

export { shownDb } from '../shown-db.js';

let chosenClock: Clock | undefined;

/**
 * The clock this process runs on: the system's, unless \`USP_CLOCK\` names another (tests keep every
 * process they start on their own clock with it; see README "Testing"). Read once per process.
 */
export function processClock(): Clock {
  if (!chosenClock) {
    try {
      chosenClock = clockFromSetting(process.env[CLOCK_VARIABLE]);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return chosenClock;
}

/**
 * The line a command logs at start when no public URL is configured: every link in tool results,
 * pages and mail then names `url`, which opens only on this machine.
 */
export function publicUrlNotice(url: string): string {
  return `no public URL configured: links in tool results, pages and mail name ${url}, which opens only on this machine; give --public-url https://<the address people reach> (or settings.public_url) so people elsewhere can open them`;
}

/** The line a command logs at start when it does not run on the system clock (null when it does). */
export function clockNotice(): string | null {
  const setting = process.env[CLOCK_VARIABLE]?.trim();
  return setting
    ? `${CLOCK_VARIABLE}=${setting}: this process runs on that clock, not the system's (for tests and demos)`
    : null;
}

/** Open the business's database for an offline command (no listening, no dispatching). */
export async function openOffline(flags: Flags) {
  // Without --config or --demo the demo only names the database (--db): nothing to check it against.
  const definitionOrigin = flags.config || flags.demo ? originOf(flags) : undefined;
  if (!flags.demo && !flags.config) flags = { ...flags, demo: true };
  const def = await loadBusinessFileOf(flags);
  const db = dbPath(flags, def);
  // The database's definition when it holds one (the file only names the database and fills an empty one).
  const server = await createUspServer({
    business: def,
    definition: 'stored_first',
    definitionOrigin,
    settingsOverride: settingsFromFlags(flags),
    db,
    clock: processClock(),
    sandbox: true,
    sweepIntervalMs: 0,
    log: createLogger({ level: 'warn' }),
    webhooks: { enabled: false, keyOverlapMs: webhookOptions(flags).keyOverlapMs },
  });
  return { server, db };
}

export const BUSINESS_HELP = `Business:
  --demo                      the built-in demo business (implies --sandbox unless --require-auth)
  --config FILE               the business described by FILE (JSON; see schemas/business-file.schema.json)`;

export const DB_HELP = `  --db PATH                   SQLite database file, or a postgres:// URL (default $DATABASE_URL, else
                              $XDG_DATA_HOME/usp-server/<business id>.db, else ~/.local/share/usp-server/<business id>.db;
                              ':memory:' keeps nothing)`;

/** For the commands that act on a running business's database (bookings, webhooks, keys). */
export const OFFLINE_HELP = `Database (give the same business and database as the server):
  --demo | --config FILE      the business (default --demo)
${DB_HELP}`;

export const LOG_HELP = `Logs and shutdown (see README "Operating"):
  --log-level LEVEL           trace, debug, info, warn, error, fatal or silent (default info); buyer data is redacted at every level
  --log-format json|pretty    JSON lines, or readable lines (default: pretty on a terminal, json otherwise); always on stderr
  --shutdown-timeout SECONDS  on SIGTERM or SIGINT, let calls in flight finish for at most this long, then exit (default 10)`;

/** The server's logger as --log-level and --log-format ask. */
export function loggerFrom(flags: Flags): ServerLogger {
  const level = flags['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
  const format = flags['log-format'];
  if (format !== undefined && format !== 'json' && format !== 'pretty')
    throw new UsageError(`--log-format must be json or pretty, got ${JSON.stringify(format)}`);
  return createLogger({ level: level as LogLevel, format: format as LogFormat | undefined });
}

/** --shutdown-timeout in milliseconds (default 10 s). */
export function shutdownTimeoutMs(flags: Flags): number {
  return (intFlag(flags, 'shutdown-timeout', 1) ?? 10) * 1000;
}

/**
 * Stop a server on SIGTERM or SIGINT: gracefully within the bound, then exit (0 when every call in
 * flight finished, 1 when some were cut or the shutdown failed). A second signal exits at once.
 */
export function stopOnSignals(stop: () => Promise<boolean>, log: ServerLogger, timeoutMs: number): () => Promise<void> {
  let stopping = false;
  const exit = (code: number) => {
    log.pino.flush();
    process.exit(code);
  };
  const onSignal = async () => {
    if (stopping) return;
    stopping = true;
    // A last resort if closing itself hangs: the bound holds whatever happens.
    setTimeout(() => {
      log.error('shutdown did not finish within the bound; exiting', { timeout_ms: timeoutMs });
      exit(1);
    }, timeoutMs + 2000).unref();
    try {
      const clean = await stop();
      log.info('stopped', { clean });
      exit(clean ? 0 : 1);
    } catch (err) {
      log.error('shutdown failed', { error: String(err) });
      exit(1);
    }
  };
  const handler = () => (stopping ? exit(1) : void onSignal());
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return onSignal;
}

export const ACCESS_HELP = `  --sandbox                   accept privileged calls without platform authentication and say so in the profile
  --require-auth              refuse unauthenticated privileged calls (the default without --demo)
  --admin-key KEY             an API key that acts as the business (Authorization: Bearer KEY); repeatable`;

export const AUTH_HELP = `Authentication (see README "Authentication"):
  --allow-loopback-profiles   development: accept http://127.0.0.1 platform profiles and webhook URLs (loopback servers only)
  --require-pop-nonce         challenge every proof of possession for a nonce
  --allow-es256               accept ES256 proofs besides EdDSA
  --profile-uri URL           another URI this business's profile is reachable at (accepted as proof aud); repeatable
  --profile-allowlist PREFIX  only platforms whose profile URL starts with PREFIX; repeatable
  --rate-limit CLASS=N        tokens per minute for public|reads|holds|bookings, per address, proven profile and key,
                              and for a registry registrations (per registering host) and registrations_total (0 = off); repeatable
                              defaults public=1200 reads=300 holds=30 bookings=20 (ten times that in the sandbox);
                              a 31-day availability query costs 31 public tokens, any other call 1
  --no-rate-limit             turn rate limits off
OAuth 2.0 (oauth2_bearer) is always on: /.well-known/oauth-authorization-server, /oauth/*, the buyer's
/account page; a privileged MCP call over HTTP with no credential gets 401 naming resource_metadata.`;

export const SETTINGS_HELP = `Business settings (override the business file's "settings"):
  --hold-ttl SECONDS                    hold time-to-live (default 600)
  --payment-ttl SECONDS                 longest a payment link stays open after booking (default 86400)
  --payment-due-before-start SECONDS    a payment link closes this long before the start if sooner (default 3600)
  --payment-min-window SECONDS          shortest a payment link stays open, never past the start (default 1800)
  --manual-confirmation-ttl SECONDS     how long a manual booking waits for the business (default 86400)
  --waitlist-offer-ttl SECONDS          how long a waitlist offer can be accepted (default 900)
  --max-query-days N                    longest availability query range in days (default 31)
  --max-holds N                         active holds per platform and buyer on one service (default 3)
  --max-waitlist N                      most entries on one service's waitlist (default 100)
  --reminder-offset SECONDS             booking.reminder this long before the start (default 86400; 0 = off)
  --public-url URL                      public origin of the server (profile endpoints, checkout links; default the file's
                                        settings.public_url, else the listening address; https required beyond loopback)
  --checkout-url TEMPLATE               an external checkout page (see Payments)`;
