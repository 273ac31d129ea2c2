/** `usp-server host`: many businesses in one process, each at its own host name (README "Hosting many businesses"). */
import { dirname, join, resolve } from 'node:path';
import type { MailOptions } from '../mail-wiring.js';
import { hashApiKey, isLoopbackAddress } from '../../security/index.js';
import { HOST_NAME } from '../operator-desk.js';
import {
  checkPaymentAccount,
  DirectoryClash,
  openDeploymentDirectoryAt,
  type DeploymentDirectory,
  type HostedBusiness,
} from '../../store/index.js';
import { loadBusinessFile } from '../business-file.js';
import { createHosting, hostedDefinition, publicOrigin, type OperatorOptions } from '../hosting.js';
import type { ConnectPlatform } from '../hosted-connect.js';
import { requiredFlagWords } from '../../payments/index.js';
import { proxyList, registryUrls } from './serve.js';
import { followDirectory, removeHostedBusiness, type HostedRegistrations } from '../hosted-registry.js';
import {
  CommandError,
  UsageError,
  dataDir,
  intFlag,
  loggerFrom,
  processClock,
  securityOptions,
  shownDb,
  shutdownTimeoutMs,
  stopOnSignals,
  type Command,
  type Flags,
} from './common.js';
import { existsSync, readFileSync } from 'node:fs';
import { calendarSecretPrefix } from '../../domain/index.js';
import type { Logger } from '../../operations/index.js';

import { CONNECT, HELP } from './host-help.js';

const NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** --data, else the per-user data folder's `hosting`. */
function deploymentDir(flags: Flags): string {
  return flags.data ? resolve(flags.data) : join(dataDir(), 'hosting');
}

/** --db: a postgres:// URL, where the businesses and the deployment's directory live. */
function pgUrl(flags: Flags, sub: string): string | undefined {
  const db = flags.db;
  if (db && !/^postgres(ql)?:\/\//.test(db))
    throw new UsageError(
      `--db of host ${sub} is a postgres:// URL (on SQLite, each business has its file in the --data folder)`,
    );
  return db;
}

/** --pg-keyed: the keyed schema every business shares (with --db only). */
function pgKeyed(flags: Flags, db: string | undefined): string | undefined {
  if (!flags['pg-keyed']) return undefined;
  if (!db)
    throw new UsageError('--pg-keyed keeps every business in one PostgreSQL schema: give --db postgres://... too');
  return 'usp_keyed';
}

/** The deployment's directory: in the PostgreSQL database with --db (shared by every process serving it), else the --data folder's deployment.db. */
async function openDirectory(flags: Flags, sub: string, onError?: (err: Error) => void): Promise<DeploymentDirectory> {
  const dir = deploymentDir(flags);
  const db = pgUrl(flags, sub);
  try {
    return await openDeploymentDirectoryAt({ db, path: join(dir, 'deployment.db') }, { onError });
  } catch (err) {
    throw new CommandError(
      `cannot open the deployment's directory ${db ? 'in the --db database' : `in ${dir}`}: ${(err as Error).message}`,
    );
  }
}

/** --host as host names: comma-separated, lowercased, each a DNS name without a port. */
function hostNames(flags: Flags): string[] {
  const names = (flags.host ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError('give the business its host names: --host rosa.localhost[,book.rosa.example]');
  const bad = names.find((n) => !NAME.test(n));
  if (bad)
    throw new UsageError(
      `--host: ${JSON.stringify(bad)} is not a host name (letters, digits, hyphens and dots; no port, no scheme)`,
    );
  return names;
}

async function add(flags: Flags, args: string[]): Promise<number> {
  const file = args[0];
  if (flags.demo && file) throw new UsageError('give either a business file or --demo, not both');
  if (!flags.demo && !file)
    throw new UsageError('Usage: usp-server host add FILE --host NAME[,NAME...]   (or --demo instead of FILE)');
  const names = hostNames(flags);
  const origin = flags.demo ? 'demo' : resolve(file!);
  const def = flags.demo ? await hostedDefinition({ origin } as HostedBusiness) : await loadBusinessFile(origin);
  const account = accountFlag(flags);
  const directory = await openDirectory(flags, 'add');
  try {
    // Two ids that read alike as a calendar secret's name would share each other's secrets.
    const alike = directory
      .list()
      .find((b) => b.id !== def.business.id && calendarSecretPrefix(b.id) === calendarSecretPrefix(def.business.id));
    if (alike)
      throw new CommandError(
        `the id ${def.business.id} reads as ${alike.id} in calendar secret names (${calendarSecretPrefix(alike.id)}); give the business another id`,
      );
    // The file's text kept in the directory: a process on another machine composes the business from it.
    await directory.add({
      id: def.business.id,
      hosts: names,
      origin,
      addedAt: Date.now(),
      ...(account ? { paymentAccount: account } : {}),
      ...(flags.demo ? {} : { definition: readFileSync(origin, 'utf8') }),
    });
  } catch (err) {
    if (err instanceof DirectoryClash) throw new CommandError(err.message);
    throw err;
  } finally {
    await directory.close();
  }
  console.log(`${def.business.name} (${def.business.id}) is hosted at ${names.join(', ')}`);
  console.log(
    `Next: npx usp-server host serve${flags.data ? ` --data ${flags.data}` : ''}, then http://${names[0]}:8787/.well-known/usp`,
  );
  return 0;
}

async function list(flags: Flags): Promise<number> {
  const directory = await openDirectory(flags, 'list');
  try {
    const all = directory.list();
    if (flags.json)
      console.log(
        JSON.stringify(
          all.map((b) => ({
            id: b.id,
            status: b.status,
            hosts: b.hosts,
            origin: b.origin,
            ...(b.paymentAccount ? { payment_account: b.paymentAccount } : {}),
          })),
          null,
          2,
        ),
      );
    else if (all.length === 0) console.log('no business is hosted yet (usp-server host add FILE --host NAME)');
    else for (const b of all) console.log(`${b.id}  ${b.status}  ${b.hosts.join(',')}  ${b.origin}`);
    return 0;
  } finally {
    await directory.close();
  }
}

async function setStatus(flags: Flags, id: string | undefined, status: 'active' | 'suspended'): Promise<number> {
  if (!id)
    throw new UsageError(
      `Usage: usp-server host ${status === 'active' ? 'resume' : 'suspend'} ID   (usp-server host list shows the ids)`,
    );
  const directory = await openDirectory(flags, status === 'active' ? 'resume' : 'suspend');
  try {
    const reason = flags.reason?.trim();
    if (reason !== undefined && (reason === '' || reason.length > 300 || /[\u0000-\u001f\u007f]/.test(reason)))
      throw new UsageError('--reason takes one line of at most 300 characters');
    if (!(await directory.setStatus(id, status, reason)))
      throw new CommandError(`no hosted business has the id ${JSON.stringify(id)} (usp-server host list shows them)`);
  } finally {
    await directory.close();
  }
  console.log(
    status === 'active'
      ? `${id} is served again`
      : `${id} is suspended: it takes no booking until usp-server host resume ${id} (its profile and tools say why)`,
  );
  return 0;
}

/** A business's account from an adapter's account flag (`host add`), checked before the directory is opened. */
function accountFlag(flags: Flags): string | undefined {
  const f = flags as Record<string, unknown>;
  const a = CONNECT.find((c) => typeof f[c.connect!.accountFlag] === 'string');
  if (!a) return undefined;
  return checkedAccount(String(f[a.connect!.accountFlag]), `--${a.connect!.accountFlag}`);
}

function checkedAccount(account: string, what: string): string {
  try {
    checkPaymentAccount(account);
  } catch (err) {
    throw new UsageError(`${what}: ${(err as Error).message}`);
  }
  return account;
}

/** `host payment-account ID ACCOUNT|--none`: the business's connected payment account, set or forgotten. */
async function paymentAccount(flags: Flags, id: string | undefined, account: string | undefined): Promise<number> {
  if (!id || (account === undefined) === !flags.none)
    throw new UsageError('Usage: usp-server host payment-account ID ACCOUNT|--none');
  const given = account === undefined ? undefined : checkedAccount(account, 'ACCOUNT');
  const directory = await openDirectory(flags, 'payment-account');
  try {
    if (!(await directory.setPaymentAccount(id, given)))
      throw new CommandError(`no hosted business has the id ${JSON.stringify(id)} (usp-server host list shows them)`);
  } catch (err) {
    if (err instanceof DirectoryClash) throw new CommandError(err.message);
    throw err;
  } finally {
    await directory.close();
  }
  console.log(
    given ? `${id} takes payments on the connected account ${given}` : `${id} has no connected payment account now`,
  );
  return 0;
}

/** `host serve`'s connected accounts: the platform's options from an adapter's flags (or environment), its required ones all or none. */
export function connectPlatform(flags: Flags, env: NodeJS.ProcessEnv = process.env): ConnectPlatform | undefined {
  const f = flags as Record<string, unknown>;
  for (const a of CONNECT) {
    const values: Record<string, string | undefined> = {};
    for (const flag of a.flags) {
      const v = f[flag.name] ?? (flag.env ? env[flag.env] : undefined);
      values[flag.name] = typeof v === 'string' && v !== '' ? v : undefined;
    }
    const required = a.flags.filter((flag) => flag.required);
    const given = required.filter((flag) => values[flag.name] !== undefined);
    if (given.length === 0) continue;
    if (given.length < required.length)
      throw new UsageError(`${a.facts.label}'s connected accounts need ${requiredFlagWords(a)}`);
    const bad = a.flags.find(
      (flag) => flag.url && values[flag.name] !== undefined && !/^https?:\/\/[^/]/.test(values[flag.name]!),
    );
    if (bad) throw new UsageError(`--${bad.name} must be an http(s) URL, got ${JSON.stringify(values[bad.name])}`);
    values[a.connect!.accountFlag] = undefined;
    return { provider: a.facts.name, options: a.options(values) };
  }
  return undefined;
}

/**
 * Each business's mail: through the one relay (--smtp-url), its From its own name at its own host;
 * or written as .eml files in a folder of its own under --mail-dir. Its templates come from its
 * business file's folder. Neither flag: queued in its store, sent once one is given.
 */
export function hostedMail(
  flags: Flags,
  b: HostedBusiness,
  env: NodeJS.ProcessEnv = process.env,
): MailOptions | undefined {
  const smtpUrl = flags['smtp-url'] ?? env.SMTP_URL;
  const dir = flags['mail-dir'];
  if (smtpUrl && dir)
    throw new UsageError(
      '--smtp-url (or SMTP_URL) and --mail-dir are exclusive: mail is either sent or written to folders',
    );
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl))
    throw new UsageError('--smtp-url must be smtp://user:pass@host:port or smtps://user:pass@host:port');
  if (!smtpUrl && !dir) return undefined;
  return {
    ...(smtpUrl ? { smtpUrl } : { dir: join(resolve(dir!), b.id) }),
    ...(b.origin === 'demo' ? {} : { templateBase: dirname(b.origin) }),
  };
}

function tls(flags: Flags): { cert: Buffer; key: Buffer } | undefined {
  if (!flags['tls-cert'] && !flags['tls-key']) return undefined;
  if (!flags['tls-cert'] || !flags['tls-key']) throw new UsageError('give both --tls-cert and --tls-key');
  return { cert: readFileSync(flags['tls-cert']), key: readFileSync(flags['tls-key']) };
}

/** --operator-host with its keys, checked before listening; none without --operator-host. */
export function operatorFlags(flags: Flags, directory: DeploymentDirectory): OperatorOptions | undefined {
  const host = flags['operator-host']?.trim().toLowerCase();
  const keys = flags['operator-key'] ?? [];
  const hashes = (flags['operator-key-hash'] ?? []).map((h) => h.trim().toLowerCase());
  if (host === undefined) {
    if (keys.length || hashes.length)
      throw new UsageError('--operator-key and --operator-key-hash need --operator-host NAME');
    return undefined;
  }
  if (!HOST_NAME.test(host))
    throw new UsageError(`--operator-host: ${JSON.stringify(host)} is not a host name (no port, no scheme)`);
  const holder = directory.byHost(host);
  if (holder)
    throw new UsageError(
      `--operator-host: ${host} already reaches the business ${holder.id}; give the operator a name of its own`,
    );
  if (keys.length + hashes.length === 0)
    throw new UsageError('--operator-host needs --operator-key KEY or --operator-key-hash SHA256');
  if (keys.some((k) => k.length < 16)) throw new UsageError('--operator-key must be at least 16 characters');
  if (hashes.some((h) => !/^[0-9a-f]{64}$/.test(h)))
    throw new UsageError('--operator-key-hash takes a sha-256 digest: 64 hex digits');
  return { host, keyHashes: [...keys.map(hashApiKey), ...hashes] };
}

/** The operator's options from the flags; a bad flag closes the directory opened before it. */
async function operatorOrClose(flags: Flags, directory: DeploymentDirectory): Promise<OperatorOptions | undefined> {
  try {
    return operatorFlags(flags, directory);
  } catch (err) {
    await directory.close();
    throw err;
  }
}

/** Listen, or close what was opened and say why: a taken port is the command's failure, a bad address a usage error. */
async function listenOrClose(
  hosting: ReturnType<typeof createHosting>,
  port: number,
  address: string,
): Promise<string> {
  try {
    return await hosting.listen(port, address);
  } catch (err) {
    await hosting.close();
    const e = err as NodeJS.ErrnoException;
    throw e.code ? new CommandError(`cannot listen on ${address}:${port}: ${e.message}`) : new UsageError(e.message);
  }
}

/** The start-up lines: where the deployment listens, each active business's profile, and the warnings. */
function startLines(
  flags: Flags,
  o: {
    log: Logger;
    directory: DeploymentDirectory;
    url: string;
    db?: string;
    sandbox: boolean;
    scheme?: string;
    address: string;
  },
): void {
  const { log, url, db, scheme, address } = o;
  const active = o.directory.list().filter((b) => b.status === 'active');
  log.info(
    `the deployment of ${active.length} business${active.length === 1 ? '' : 'es'} is open at ${url} (each at its host name${db ? `; database: ${shownDb(db)}` : ''})`,
  );
  const listened = new URL(url);
  for (const b of active)
    log.info(
      `${b.id}: ${publicOrigin(scheme ?? listened.protocol.slice(0, -1), b.hosts[0]!, flags['public-port'] ?? listened.port)}/.well-known/usp`,
    );
  if (o.sandbox)
    log.warn('SANDBOX: privileged operations are accepted without platform authentication; do not use in production.');
  if (!isLoopbackAddress(address) && address !== 'localhost' && !scheme)
    log.warn('give --public-scheme https (and --public-port) when a TLS proxy fronts this deployment');
}

async function serve(flags: Flags): Promise<number> {
  const port = intFlag(flags, 'port', 0) ?? (process.env.PORT ? Number(process.env.PORT) : 8787);
  const address = flags.host ?? '127.0.0.1';
  const scheme = flags['public-scheme'];
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    throw new UsageError(`--public-scheme must be http or https, got ${JSON.stringify(scheme)}`);
  const db = pgUrl(flags, 'serve');
  const keyed = pgKeyed(flags, db);
  const log = loggerFrom(flags);
  const sandbox = Boolean(flags.sandbox);
  // The mail flags checked once before listening: a bad one is a usage error, not a failed opening per business.
  hostedMail(flags, { id: 'check', origin: 'demo' } as HostedBusiness);
  const registries = registryUrls(flags);
  const reRegister = intFlag(flags, 'register-interval', 1);
  if (reRegister !== undefined && reRegister > 86_400)
    throw new UsageError('--register-interval must be at most 86400 seconds (registries re-index at least daily)');
  const scanSeconds = intFlag(flags, 'directory-scan', 1) ?? 5;
  let followed: HostedRegistrations | undefined;
  const paymentConnect = connectPlatform(flags);
  const directory = await openDirectory(flags, 'serve', (err) =>
    log.warn('deployment directory', { error: err.message }),
  );
  const operator = await operatorOrClose(flags, directory);
  const hosting = createHosting({
    directory,
    dataDir: deploymentDir(flags),
    db,
    pgKeyed: keyed,
    server: { sandbox, clock: processClock(), security: securityOptions(flags) },
    serverFor: (b) => ({
      mail: hostedMail(flags, b),
      // A new definition or a catalog change is news for every registry.
      onDefinitionChanged: () => followed?.catalogChanged(b.id),
      onEvents: (events) => {
        if (events.some((e) => e.event.startsWith('service.'))) followed?.catalogChanged(b.id);
      },
    }),
    log,
    maxLoaded: intFlag(flags, 'max-loaded', 1),
    idleCloseMs: ((intFlag(flags, 'idle-close', 0) ?? 600) * 1000) as number,
    wake: {
      intervalMs: (intFlag(flags, 'wake-interval', 0) ?? 15) * 1000,
      concurrency: intFlag(flags, 'wake-concurrency', 1),
    },
    publicScheme: scheme as 'http' | 'https' | undefined,
    publicPort: intFlag(flags, 'public-port', 1),
    tls: tls(flags),
    trustProxy: proxyList(flags),
    operator,
    paymentConnect,
  });
  const url = await listenOrClose(hosting, port, address);
  startLines(flags, { log, directory, url, db, sandbox, scheme, address });
  followed = followDirectory({
    registries,
    directory,
    use: (id, fn) => hosting.pool.use(id, fn),
    closeBusiness: (id) => hosting.pool.close(id),
    log,
    intervalMs: reRegister === undefined ? undefined : reRegister * 1000,
    scanMs: scanSeconds * 1000,
  });
  void followed.scan();
  const timeoutMs = shutdownTimeoutMs(flags);
  stopOnSignals(
    () => {
      followed?.stop();
      return hosting.shutdown(timeoutMs);
    },
    log,
    timeoutMs,
  );
  return -1;
}

async function remove(flags: Flags, id: string | undefined): Promise<number> {
  if (!id)
    throw new UsageError('Usage: usp-server host remove ID [--export FILE]   (usp-server host list shows the ids)');
  const db = pgUrl(flags, 'remove');
  const keyed = pgKeyed(flags, db);
  const exportTo = flags.export ? resolve(flags.export) : undefined;
  if (exportTo && db)
    throw new UsageError(
      keyed
        ? `--export copies a SQLite database; keyed by business, the business's rows are those of ${keyed} with its business_id: keep them first, then remove it`
        : '--export copies a SQLite database; on PostgreSQL dump the business first (pg_dump --schema=usp_<id>), then remove it',
    );
  if (exportTo && existsSync(exportTo)) throw new UsageError(`--export: ${exportTo} exists already; give a new file`);
  const directory = await openDirectory(flags, 'remove');
  try {
    const b = directory.get(id);
    if (!b)
      throw new CommandError(`no hosted business has the id ${JSON.stringify(id)} (usp-server host list shows them)`);
    const report = await removeHostedBusiness(
      {
        directory,
        dataDir: deploymentDir(flags),
        db,
        pgKeyed: keyed,
        exportTo,
        log: loggerFrom({ ...flags, 'log-level': flags['log-level'] ?? 'warn' }),
      },
      b,
    );
    if (exportTo) console.log(`${id}: its database is copied to ${exportTo}`);
    for (const r of report.told) console.log(`${id}: removed from the registry ${r}`);
    for (const r of report.untold)
      console.error(
        `${id}: the registry ${r} could not be told (it drops the registration once re-indexing finds the profile gone)`,
      );
    console.log(`${id} is removed: its host names ${b.hosts.join(', ')} are free and its store is deleted`);
    return 0;
  } finally {
    await directory.close();
  }
}

async function run(flags: Flags, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return add(flags, rest);
    case 'list':
      return list(flags);
    case 'suspend':
      return setStatus(flags, rest[0], 'suspended');
    case 'resume':
      return setStatus(flags, rest[0], 'active');
    case 'remove':
      return remove(flags, rest[0]);
    case 'serve':
      return serve(flags);
    case 'payment-account':
      return paymentAccount(flags, rest[0], rest[1]);
    default:
      throw new UsageError(
        `Usage: usp-server host add|list|suspend|resume|remove|payment-account|serve   (usp-server host --help says more)${sub ? `; not ${JSON.stringify(sub)}` : ''}`,
      );
  }
}

export const hostCommand: Command = { name: 'host', help: HELP, run };
