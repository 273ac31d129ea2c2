/**
 * The usp-server command line: `serve` runs the business, `bookings` lets the business act on its
 * own bookings against the same database, `validate` checks a business file, `hash-key` prints the
 * digest to put in a business file for an admin API key.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { BusinessDef } from '../domain/business.js';
import { BusinessFileError, loadBusinessFile, parseBusinessFile } from './business-file.js';
import { createUspServer, consoleLogger, type ServerOptions } from './compose.js';
import type { SecurityOptions } from './security-wiring.js';
import { operationByName, type OperationResponse } from '../operations/index.js';
import { hashApiKey } from '../security/index.js';
import { serveMcpStdio } from '../bindings/mcp/index.js';
import { formatInstant } from '../domain/time.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export const HELP = `usp-server: a Universal Scheduling Protocol business server (REST + MCP)

Usage:
  usp-server serve [--demo | --config FILE] [options]   run the business
  usp-server mcp [--demo | --config FILE] [--db PATH]  speak MCP over stdio (newline-delimited JSON-RPC)
  usp-server bookings list [--status S] [--limit N]     list recent bookings
  usp-server bookings get ID                            show one booking
  usp-server bookings confirm ID                        confirm a manual-confirmation booking
  usp-server bookings start|complete|no-show ID         mark a booking in progress / completed / no-show
  usp-server bookings cancel ID [--reason TEXT]         cancel as the business (no fee, full refund)
  usp-server webhooks list [--status S] [--limit N]    the delivery log (each attempt: status, latency, error)
  usp-server webhooks retry ID|--failed                put a failed delivery (or all) back in the queue
  usp-server keys list                                 webhook signing keys (active, retired)
  usp-server keys rotate                               new signing key; the old one stays published 7 days
  usp-server validate FILE                              check a business file and exit
  usp-server hash-key KEY                               print the sha-256 digest of an admin API key

Business:
  --demo                      serve the built-in demo business (implies --sandbox unless --require-auth)
  --config FILE               serve the business described by FILE (JSON; see schemas/business-file.schema.json)

Server (serve):
  --port N                    port to listen on (default 8787, or $PORT)
  --host H                    address to listen on (default 127.0.0.1)
  --db PATH                   SQLite database file, or a postgres:// URL (default $DATABASE_URL, else ./data/<business id>.db; ':memory:' for none)
  --db-connect-timeout MS     PostgreSQL: give up opening a connection after MS milliseconds (default 5000)
  --db-statement-timeout MS   PostgreSQL statement_timeout; SQLite: wait for another process's write lock (default 5000)
  --sandbox                   accept privileged calls without platform authentication and say so in the profile
  --require-auth              refuse unauthenticated privileged calls (the default without --demo)
  --admin-key KEY             an API key that acts as the business (Authorization: Bearer KEY); repeatable
  --max-body-bytes N          largest accepted request body (default 65536)
  --tls-cert FILE --tls-key FILE   serve HTTPS directly with this PEM certificate and key
  --trust-proxy               behind a TLS-terminating proxy: trust X-Forwarded-Proto/Host, refuse requests it did not mark https

Authentication (see README "Authentication"):
  --allow-loopback-profiles   development: accept http://127.0.0.1 platform profiles and webhook URLs (loopback servers only)
  --require-pop-nonce         challenge every proof of possession for a nonce
  --allow-es256               accept ES256 proofs besides EdDSA
  --profile-uri URL           another URI this business's profile is reachable at (accepted as proof aud); repeatable
  --profile-allowlist PREFIX  only platforms whose profile URL starts with PREFIX; repeatable
  --no-rate-limit             turn per-principal rate limits off (on by default outside the sandbox)

Webhooks:
  --webhook-retry-first SECONDS   first retry after (default 30)
  --webhook-max-retries N         retries after the first attempt (default 3)
  --webhook-max-total SECONDS     give up after (default 900)
  --webhook-timeout SECONDS       per attempt (default 10)
  --signing-key FILE --signing-kid KID   sign webhooks with this P-256 PEM key instead of a generated one
  --reminder-offset SECONDS       booking.reminder this long before the start (default 86400; 0 = off)

Business settings (override the business file's "settings"):
  --hold-ttl SECONDS                    hold time-to-live (default 600)
  --payment-ttl SECONDS                 how long a payment action stays open (default 1800)
  --manual-confirmation-ttl SECONDS     how long a manual booking waits for the business (default 86400)
  --waitlist-offer-ttl SECONDS          how long a waitlist offer can be accepted (default 900)
  --max-query-days N                    longest availability query range in days (default 31)
  --max-holds N                         active holds per platform and buyer on one service (default 3)
  --max-waitlist N                      most entries on one service's waitlist (default 100)
  --public-url URL                      public origin of the server (profile endpoints, checkout links)
  --checkout-url TEMPLATE               checkout page URL; {booking_id} is replaced

Other:
  --help                      this text
`;

const OPTIONS = {
  demo: { type: 'boolean' },
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  'db-connect-timeout': { type: 'string' },
  'db-statement-timeout': { type: 'string' },
  sandbox: { type: 'boolean' },
  'require-auth': { type: 'boolean' },
  'admin-key': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'hold-ttl': { type: 'string' },
  'payment-ttl': { type: 'string' },
  'manual-confirmation-ttl': { type: 'string' },
  'waitlist-offer-ttl': { type: 'string' },
  'max-query-days': { type: 'string' },
  'max-holds': { type: 'string' },
  'max-waitlist': { type: 'string' },
  'public-url': { type: 'string' },
  'checkout-url': { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  reason: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'trust-proxy': { type: 'boolean' },
  'allow-loopback-profiles': { type: 'boolean' },
  'require-pop-nonce': { type: 'boolean' },
  'allow-es256': { type: 'boolean' },
  'profile-uri': { type: 'string', multiple: true },
  'profile-allowlist': { type: 'string', multiple: true },
  'no-rate-limit': { type: 'boolean' },
  'webhook-retry-first': { type: 'string' },
  'webhook-max-retries': { type: 'string' },
  'webhook-max-total': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'signing-key': { type: 'string' },
  'signing-kid': { type: 'string' },
  'reminder-offset': { type: 'string' },
  failed: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

export function demoBusinessPath(): string {
  // dist/server/cli.js and src/server/cli.ts both sit next to demo-business.json (copied at build).
  return join(HERE, 'demo-business.json');
}

function intFlag(flags: Flags, name: keyof Flags, min: number): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${String(name)} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

export async function loadBusiness(flags: Flags): Promise<BusinessDef> {
  if (flags.demo && flags.config) throw new UsageError('give either --demo or --config FILE, not both');
  let def: BusinessDef;
  if (flags.config) def = await loadBusinessFile(flags.config);
  else if (flags.demo) def = parseBusinessFile(JSON.parse(readFileSync(demoBusinessPath(), 'utf8')), 'demo-business.json');
  else throw new UsageError('give --demo or --config FILE (see --help)');
  const s = { ...def.settings };
  const set = <K extends keyof typeof s>(k: K, v: (typeof s)[K] | undefined) => {
    if (v !== undefined) s[k] = v;
  };
  set('hold_ttl_seconds', intFlag(flags, 'hold-ttl', 1));
  set('payment_ttl_seconds', intFlag(flags, 'payment-ttl', 1));
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
  return { ...def, settings: s };
}

export function securityOptions(flags: Flags): SecurityOptions {
  const o: SecurityOptions = {};
  if (flags['allow-loopback-profiles']) o.allowLoopbackProfiles = true;
  if (flags['require-pop-nonce']) o.requireNonce = true;
  if (flags['allow-es256']) o.allowEs256 = true;
  if (flags['profile-uri']) o.profileUris = flags['profile-uri'];
  if (flags['profile-allowlist']) o.profileAllowlist = flags['profile-allowlist'];
  if (flags['no-rate-limit']) o.rateLimits = false;
  return o;
}

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
  if (flags['signing-key'] || flags['signing-kid']) {
    if (!flags['signing-key'] || !flags['signing-kid']) throw new UsageError('give both --signing-key FILE and --signing-kid KID');
    try {
      o.signingKey = { kid: flags['signing-kid'], pem: readFileSync(flags['signing-key'], 'utf8') };
    } catch (err) {
      throw new UsageError(`cannot read the signing key: ${(err as Error).message}`);
    }
  }
  return o;
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

function dbPath(flags: Flags, def: BusinessDef): string {
  return flags.db ?? (process.env.DATABASE_URL || join(process.cwd(), 'data', `${def.business.id}.db`));
}

async function serveCommand(flags: Flags): Promise<void> {
  const def = await loadBusiness(flags);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  const port = intFlag(flags, 'port', 0) ?? (process.env.PORT ? Number(process.env.PORT) : 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port ${port}`);
  const host = flags.host ?? '127.0.0.1';
  const server = await createUspServer({
    business: def,
    db: dbPath(flags, def),
    dbTimeouts: { connectTimeoutMs: intFlag(flags, 'db-connect-timeout', 100), statementTimeoutMs: intFlag(flags, 'db-statement-timeout', 100) },
    sandbox,
    adminKeys: flags['admin-key'],
    maxBodyBytes: intFlag(flags, 'max-body-bytes', 1024),
    security: securityOptions(flags),
    webhooks: webhookOptions(flags),
    trustProxy: flags['trust-proxy'],
    tls: tlsOptions(flags),
  });
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (err) {
    await server.close();
    throw new UsageError((err as Error).message);
  }
  consoleLogger.info(`${def.business.name} is open at ${url} (profile: ${url}/.well-known/usp)`);
  if (sandbox) {
    consoleLogger.warn('SANDBOX: privileged operations are accepted without platform authentication; do not use in production.');
  } else {
    consoleLogger.info('privileged operations require authentication: platform_key_pop, booking_scoped_credential, http_message_signature or api_key');
  }
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function mcpCommand(flags: Flags): Promise<void> {
  const def = await loadBusiness(flags);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  // stdout carries the protocol: every log line goes to stderr (consoleLogger does).
  const server = await createUspServer({ business: def, db: dbPath(flags, def), sandbox, adminKeys: flags['admin-key'], security: securityOptions(flags) });
  const stdio = await serveMcpStdio({ pipeline: server.pipeline }, server.hub);
  consoleLogger.info(`${def.business.name}: MCP on stdio${sandbox ? ' (SANDBOX: privileged calls need no platform authentication)' : ''}`);
  const stop = async () => {
    await stdio.close().catch(() => undefined);
    await server.close();
    process.exit(0);
  };
  process.stdin.once('end', stop);
  void stdio.closed.then(stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Open the business's database for an offline command (no listening, no dispatching). */
async function openOffline(flags: Flags) {
  if (!flags.demo && !flags.config) flags = { ...flags, demo: true };
  const def = await loadBusiness(flags);
  return createUspServer({ business: def, db: dbPath(flags, def), sandbox: true, sweepIntervalMs: 0, log: consoleLogger, webhooks: { enabled: false } });
}

async function webhooksCommand(flags: Flags, args: string[]): Promise<void> {
  const server = await openOffline(flags);
  try {
    const [sub, id] = args;
    if (sub === 'list') {
      const status = flags.status as 'pending' | 'delivered' | 'failed' | 'canceled' | undefined;
      const rows = await server.store.read((tx) => tx.webhooks.list({ status, limit: intFlag(flags, 'limit', 1) ?? 20 }));
      for (const d of rows) {
        console.log(`#${d.id}  ${d.status.padEnd(9)} ${d.event.padEnd(24)} ${d.event_id}  -> ${d.target_url}  attempts ${d.attempts}${d.last_status ? `  last HTTP ${d.last_status}` : ''}${d.last_error ? `  (${d.last_error})` : ''}`);
        const attempts = await server.store.read((tx) => tx.webhooks.attempts(d.id));
        for (const a of attempts) {
          console.log(`      attempt ${a.attempt} at ${new Date(a.at_ms).toISOString()}: ${a.status_code ?? 'no response'} in ${a.latency_ms} ms${a.error ? ` - ${a.error}` : ''}`);
        }
      }
      if (rows.length === 0) console.log('no deliveries');
    } else if (sub === 'retry') {
      const target = flags.failed ? null : Number(id);
      if (target !== null && !Number.isInteger(target)) throw new UsageError('usp-server webhooks retry ID | --failed');
      const n = await server.store.transaction((tx) => tx.webhooks.retry(target, Date.now()));
      console.log(`${n} deliver${n === 1 ? 'y' : 'ies'} queued again; the running server sends them at its next pass`);
    } else throw new UsageError(`unknown webhooks command ${JSON.stringify(sub)} (see --help)`);
  } finally {
    await server.close();
  }
}

async function keysCommand(flags: Flags, args: string[]): Promise<void> {
  const server = await openOffline(flags);
  try {
    if (args[0] === 'rotate') {
      const kid = await server.keyring.rotate(Date.now());
      console.log(`new signing key ${kid}; restart the server to sign with it (the old key stays published for 7 days)`);
    } else if (args[0] === 'list' || args[0] === undefined) {
      for (const k of server.keyring.list()) {
        console.log(`${k.kid}  created ${new Date(k.created_ms).toISOString()}${k.retired_ms ? `  retired ${new Date(k.retired_ms).toISOString()}` : '  active'}`);
      }
    } else throw new UsageError(`unknown keys command ${JSON.stringify(args[0])} (see --help)`);
  } finally {
    await server.close();
  }
}

function printResponse(res: OperationResponse, zone: string): void {
  if (!res.ok) throw new UsageError(`${res.error.code}: ${res.error.message}`);
  for (const m of res.messages) console.error(`${m.type}: ${m.code}: ${m.content}`);
  const b = res.data.booking as Record<string, any> | undefined;
  if (b) console.log(JSON.stringify(b, null, 2));
  void zone;
}

async function bookingsCommand(flags: Flags, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (!flags.demo && !flags.config) flags = { ...flags, demo: true };
  const def = await loadBusiness(flags);
  // Events raised here land in the outbox; the running server's dispatcher delivers them.
  const server = await createUspServer({ business: def, db: dbPath(flags, def), sandbox: true, sweepIntervalMs: 0, log: consoleLogger, webhooks: { enabled: false } });
  const caller = { principal: 'business', profile: null, business: true };
  try {
    if (sub === 'list') {
      const limit = intFlag(flags, 'limit', 1) ?? 20;
      const recs = await server.store.read((tx) => tx.bookings.recent(limit, flags.status));
      for (const r of recs) {
        const b = r.booking;
        console.log(`${b.id}  ${b.status.padEnd(15)} ${formatInstant(r.priv.start_ms, server.biz.zone)}  ${b.service_name}  ${b.buyer.first_name} ${b.buyer.last_name}`);
      }
      if (recs.length === 0) console.log('no bookings');
      return;
    }
    const opName = { get: 'get_booking', confirm: 'confirm_booking', start: 'start_booking', complete: 'complete_booking', 'no-show': 'mark_no_show', cancel: 'cancel_booking' }[sub ?? ''];
    if (!opName) throw new UsageError(`unknown bookings command ${JSON.stringify(sub)} (see --help)`);
    if (!id) throw new UsageError(`usp-server bookings ${sub} needs a booking id`);
    const input: Record<string, unknown> = { booking_id: id };
    if (sub === 'cancel' && flags.reason) input.reason = flags.reason;
    printResponse(await server.pipeline.execute(operationByName(opName), { input, trustedCaller: caller }), server.biz.zone);
  } finally {
    await server.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`usp-server: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (flags.help || !command) {
    console.log(HELP);
    return flags.help ? 0 : 2;
  }
  try {
    switch (command) {
      case 'serve':
        await serveCommand(flags);
        return -1; // keep running
      case 'mcp':
        await mcpCommand(flags);
        return -1;
      case 'bookings':
        await bookingsCommand(flags, rest);
        return 0;
      case 'webhooks':
        await webhooksCommand(flags, rest);
        return 0;
      case 'keys':
        await keysCommand(flags, rest);
        return 0;
      case 'validate': {
        const file = rest[0] ?? flags.config;
        if (!file) throw new UsageError('usp-server validate FILE');
        const def = await loadBusinessFile(file);
        console.log(`${file}: valid (${def.services.length} services, ${def.resources.length} resources)`);
        return 0;
      }
      case 'hash-key':
        if (!rest[0]) throw new UsageError('usp-server hash-key KEY');
        console.log(hashApiKey(rest[0]));
        return 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)} (see --help)`);
    }
  } catch (err) {
    if (err instanceof BusinessFileError || err instanceof UsageError) {
      console.error(`usp-server: ${err.message}`);
      return err instanceof UsageError ? 2 : 1;
    }
    console.error(`usp-server: ${(err as Error)?.message ?? String(err)}`);
    return 1;
  }
}
