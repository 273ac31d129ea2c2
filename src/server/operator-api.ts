/**
 * The operator's admin API of a hosting deployment (`host serve --operator-host NAME`): JSON at one
 * host name of its own that no business can hold, behind an operator credential that is no
 * business's (sha-256 digest, compared in constant time; failures slow the address down). It lists
 * the businesses with their health, adds one from a business file's JSON (written to
 * `<data>/files/<id>.json`), sets a business's host names, and suspends or resumes it. A loaded
 * business's health is read through its own store and operations (today's figures, calendar sync,
 * the mail outbox), never by HTTP to itself; a business not loaded is not opened to be measured.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calendarSecretPrefix } from '../domain/index.js';
import { operationByName, type Logger } from '../operations/index.js';
import { apiKeyMatches, clientLimitKey, loginBackoff, type TrustedProxies } from '../security/index.js';
import { DirectoryClash, type DeploymentDirectory, type HostedBusiness } from '../store/index.js';
import { BusinessFileError, parseBusinessFile } from './business-file.js';
import type { BusinessPool } from './hosted-pool.js';
import type { UspServer } from './options.js';

export interface OperatorOptions {
  /** The host name (no port, lowercased) the operator API answers at. */
  host: string;
  /** Sha-256 hex digests of the operator keys. */
  keyHashes: readonly string[];
}

export interface OperatorDeps extends OperatorOptions {
  directory: DeploymentDirectory;
  pool: BusinessPool<UspServer>;
  dataDir: string;
  proxies: TrustedProxies;
  log: Logger;
  /** Wall milliseconds (the failure backoff). */
  now(): number;
}

/** A host name: DNS labels, no port, no scheme. */
export const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const MAX_BODY = 1_000_000;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers },
  });

const problem = (status: number, title: string, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: 'about:blank', title, status, detail, ...extra }), {
    status,
    headers: { 'Content-Type': 'application/problem+json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers },
  });

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

/** The operator API's fetch handler (the hosting listener sends it the requests for the operator host). */
export function operatorApi(d: OperatorDeps): (req: Request, env: unknown) => Promise<Response> {
  // A few free mistakes (a mistyped key), then each failure from the address waits twice as long as the last.
  const backoff = loginBackoff({ free: 5 });
  return async (req, env) => {
    const who = `operator:${clientLimitKey(req, env, d.proxies) ?? 'unknown'}`;
    const now = d.now();
    const wait = backoff.wait([who], now);
    if (wait > 0)
      return problem(429, 'Too many failed attempts', 'Too many failed attempts from this address; try again later.', {}, { 'Retry-After': String(Math.ceil(wait / 1000)) });
    const auth = req.headers.get('authorization') ?? '';
    const key = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    if (!key || !apiKeyMatches(key, d.keyHashes)) {
      backoff.fail([who], now);
      return problem(401, 'Unauthorized', 'The operator key is missing or wrong.', {}, { 'WWW-Authenticate': 'Bearer realm="usp-operator"' });
    }
    backoff.clear([who]);
    try {
      return await route(d, req);
    } catch (err) {
      if (err instanceof Refusal) return problem(err.status, err.title, err.message, err.extra);
      d.log.error('operator API call failed', { error: String(err) });
      return problem(500, 'Internal error', 'The operator API could not answer; the deployment log says why.');
    }
  };
}

async function route(d: OperatorDeps, req: Request): Promise<Response> {
  const path = new URL(req.url).pathname.replace(/\/+$/, '') || '/';
  const m = /^\/businesses(?:\/([^/]+)(?:\/(hosts|suspend|resume))?)?$/.exec(path);
  if (!m) throw new Refusal(404, 'Not found', `The operator API has no ${path}; it serves /businesses.`);
  const [, id, action] = m;
  const allow = (method: string) => {
    if (req.method !== method) throw new Refusal(405, 'Method not allowed', `${path} takes ${method}.`);
  };
  if (!id) {
    if (req.method === 'GET') return json(200, { businesses: await Promise.all(d.directory.list().map((b) => health(d, b))) });
    allow('POST');
    return json(201, { business: await health(d, await create(d, await body(req))) });
  }
  const b = d.directory.get(decodeURIComponent(id));
  if (!b) throw new Refusal(404, 'Not found', `No hosted business has the id ${JSON.stringify(decodeURIComponent(id))}.`);
  if (!action) {
    allow('GET');
    return json(200, { business: await health(d, b) });
  }
  if (action === 'hosts') {
    allow('PUT');
    const names = hostNames(d, (await body(req)).hosts, b.id);
    try {
      d.directory.setHosts(b.id, names);
    } catch (err) {
      if (err instanceof DirectoryClash) throw new Refusal(409, 'Conflict', err.message);
      throw err;
    }
    // Its origin and allowed hosts were composed from the old names: the next request composes it afresh.
    await d.pool.close(b.id);
    return json(200, { business: await health(d, d.directory.get(b.id)!) });
  }
  allow('POST');
  if (action === 'resume') d.directory.setStatus(b.id, 'active');
  else d.directory.setStatus(b.id, 'suspended', reasonOf((await body(req, true)).reason));
  // A loaded business takes the new status up on its next request (hosting.ts followStatus); this makes it now.
  await d.pool.peek(b.id, (s) => s.setSuspended(action === 'resume' ? undefined : (d.directory.get(b.id)!.reason ?? 'The business is not taking bookings at the moment.')));
  return json(200, { business: await health(d, d.directory.get(b.id)!) });
}

async function body(req: Request, optional = false): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.length > MAX_BODY) throw new Refusal(413, 'Payload too large', `The body is over ${MAX_BODY} characters.`);
  if (optional && text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Refusal(400, 'Bad request', 'The body must be a JSON object.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Refusal(400, 'Bad request', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

function reasonOf(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.trim().length > 300 || /[\u0000-\u001f\u007f]/.test(v))
    throw new Refusal(400, 'Bad request', 'reason is one line of at most 300 characters.');
  return v.trim();
}

function hostNames(d: OperatorDeps, v: unknown, id: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 20 || v.some((n) => typeof n !== 'string'))
    throw new Refusal(400, 'Bad request', 'hosts is a list of 1 to 20 host names, e.g. ["rosa.localhost"].');
  const names = [...new Set((v as string[]).map((n) => n.trim().toLowerCase()))];
  const bad = names.find((n) => !HOST_NAME.test(n));
  if (bad) throw new Refusal(400, 'Bad request', `${JSON.stringify(bad)} is not a host name (letters, digits, hyphens and dots; no port, no scheme).`);
  if (names.includes(d.host)) throw new Refusal(409, 'Conflict', `${d.host} is the operator's host name; no business can have it.`);
  const holder = names.map((n) => d.directory.byHost(n)).find((h) => h && h.id !== id);
  if (holder) throw new Refusal(409, 'Conflict', `a host name given already reaches ${holder.id}.`);
  return names;
}

/** A business from a business file's JSON: checked like `host add`, its file written under `<data>/files/`. */
async function create(d: OperatorDeps, input: Record<string, unknown>): Promise<HostedBusiness> {
  let def: ReturnType<typeof parseBusinessFile>;
  try {
    def = parseBusinessFile(input.business, 'business');
  } catch (err) {
    if (err instanceof BusinessFileError) throw new Refusal(422, 'Invalid business file', err.message, { issues: err.issues });
    throw err;
  }
  const id = def.business.id;
  if (!ID.test(id)) throw new Refusal(422, 'Invalid business file', `the business id ${JSON.stringify(id)} is not usable as a file name (letters, digits, _ and -).`);
  const names = hostNames(d, input.hosts, id);
  if (d.directory.get(id)) throw new Refusal(409, 'Conflict', `the deployment already hosts ${id}.`);
  // Two ids that read alike as a calendar secret's name would share each other's secrets.
  const alike = d.directory.list().find((b) => calendarSecretPrefix(b.id) === calendarSecretPrefix(id));
  if (alike) throw new Refusal(409, 'Conflict', `the id ${id} reads as ${alike.id} in calendar secret names; give the business another id.`);
  const dir = join(d.dataDir, 'files');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${id}.json`);
  writeFileSync(file, `${JSON.stringify(input.business, null, 2)}\n`, { mode: 0o600 });
  try {
    d.directory.add({ id, hosts: names, origin: file, addedAt: Date.now() });
  } catch (err) {
    if (err instanceof DirectoryClash) throw new Refusal(409, 'Conflict', err.message);
    throw err;
  }
  d.log.info('operator added a business', { business: id, hosts: names });
  return d.directory.get(id)!;
}

/** A business as the operator sees it: directory facts, and for a loaded one what needs attention. */
async function health(d: OperatorDeps, b: HostedBusiness): Promise<Record<string, unknown>> {
  const base = { id: b.id, status: b.status, ...(b.reason ? { reason: b.reason } : {}), hosts: b.hosts };
  try {
    const health = await d.pool.peek(b.id, (s) => measure(s));
    return health ? { ...base, loaded: true, health } : { ...base, loaded: false };
  } catch (err) {
    d.log.warn('could not read the health of a business', { business: b.id, error: String(err) });
    return { ...base, loaded: true, health: null };
  }
}

const AS_OPERATOR = { principal: 'business', profile: null, business: true, authenticated: true, actor: 'operator' } as const;

async function measure(s: UspServer): Promise<Record<string, number>> {
  const call = async (name: string) => {
    const res = await s.pipeline.execute(operationByName(name), { input: {}, trustedCaller: { ...AS_OPERATOR }, door: 'operator' }, s.scope);
    if (!res.ok) throw new Error(`${name}: ${JSON.stringify(res)}`);
    return res.data as Record<string, any>;
  };
  const figures = (await call('get_day_figures')).figures;
  const feeds: Array<{ stale: boolean }> = (await call('list_calendar_sync')).feeds;
  const mail = await s.store.read((tx) => tx.mail.recent(500));
  return {
    bookings_today: figures.bookings,
    failing_webhook_deliveries: figures.failed_deliveries,
    mail_failed: mail.filter((m) => m.status === 'failed').length,
    mail_queued: mail.filter((m) => m.status === 'queued').length,
    stale_calendars: feeds.filter((f) => f.stale).length,
  };
}
