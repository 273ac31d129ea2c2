/**
 * The operator's door of a hosting deployment (`host serve --operator-host NAME`): JSON at one host
 * name of its own, behind an operator credential that is no business's (sha-256 digests compared in
 * constant time; failures from an address slow it down, a few free). It only frames HTTP: what a
 * business is, how it is added, named, suspended or measured is the desk's (src/server/operator-desk.ts).
 *
 *   GET  /businesses                 every business with its health
 *   POST /businesses                 { business: <business file JSON>, hosts: [names], payment_account?, owner_email? }
 *   GET  /businesses/{id}
 *   GET  /businesses/{id}/export     its data, a SQLite database (what `host remove --export` writes)
 *   DELETE /businesses/{id}          { confirm? }: refused until its export was taken, unless confirm is true
 *   PUT  /businesses/{id}/hosts      { hosts: [names] }
 *   PUT  /businesses/{id}/payment-account   { payment_account: "acct_..." | null }
 *   POST /businesses/{id}/suspend    { reason? }
 *   POST /businesses/{id}/resume
 *   POST /businesses/{id}/domains    { domain }: a custom domain, pending its `_usp-verify` TXT record
 *   POST /businesses/{id}/domains/{domain}/verify
 *   POST /businesses/{id}/invite     { email }: the owner's one-time setup link, by the business's mail
 *
 * and the same as a small web screen under /console (screen.ts), signed in with the operator key.
 */
import type { Logger } from '../../operations/index.js';
import { apiKeyMatches, clientLimitKey, loginBackoff, type TrustedProxies } from '../../security/index.js';
import { OperatorRefusal, REFUSALS, type OperatorDesk } from './desk.js';
import { SCREEN_PREFIX, createOperatorScreen } from './screen.js';

export interface OperatorDoorOptions {
  desk: OperatorDesk;
  /** Sha-256 hex digests of the operator keys. */
  keyHashes: readonly string[];
  proxies: TrustedProxies;
  log: Logger;
  /** Wall milliseconds (the failure backoff). */
  now(): number;
}

const MAX_BODY = 1_000_000;
const HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

const json = (status: number, body: unknown) => Response.json(body, { status, headers: HEADERS });

const problem = (
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  new Response(JSON.stringify({ type: 'about:blank', title, status, detail, ...extra }), {
    status,
    headers: { 'Content-Type': 'application/problem+json; charset=utf-8', ...HEADERS, ...headers },
  });

class DoorStatus extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
  ) {
    super(detail);
  }
}

/** The operator door's fetch handler (the hosting listener sends it the operator host's requests). */
export function createOperatorDoor(o: OperatorDoorOptions): (req: Request, env: unknown) => Promise<Response> {
  // A few free mistakes (a mistyped key), then each failure from the address waits twice as long as the last.
  const backoff = loginBackoff({ free: 5 });
  const whoOf = (req: Request, env: unknown) => `operator:${clientLimitKey(req, env, o.proxies) ?? 'unknown'}`;
  const screen = createOperatorScreen({
    desk: o.desk,
    now: o.now,
    signIn: (key, req, env) => {
      const who = whoOf(req, env);
      if (backoff.wait([who], o.now()) > 0) return 'wait';
      if (!apiKeyMatches(key, o.keyHashes)) {
        backoff.fail([who], o.now());
        return 'wrong';
      }
      backoff.clear([who]);
      return 'ok';
    },
  });
  return async (req, env) => {
    const path = new URL(req.url).pathname;
    if (path === '/' || path === SCREEN_PREFIX || path.startsWith(`${SCREEN_PREFIX}/`)) return screen(req, env);
    const who = whoOf(req, env);
    const now = o.now();
    const wait = backoff.wait([who], now);
    if (wait > 0)
      return problem(
        429,
        'Too many failed attempts',
        'Too many failed attempts from this address; try again later.',
        {},
        { 'Retry-After': String(Math.ceil(wait / 1000)) },
      );
    const key = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')?.[1];
    if (!key || !apiKeyMatches(key, o.keyHashes)) {
      // Only a key presented and wrong is a guess: a request with none (a browser's /favicon.ico on the
      // operator's host) would otherwise spend the operator's own sign-in allowance.
      if (key) backoff.fail([who], now);
      return problem(
        401,
        'Unauthorized',
        'The operator key is missing or wrong.',
        {},
        { 'WWW-Authenticate': 'Bearer realm="usp-operator"' },
      );
    }
    backoff.clear([who]);
    try {
      return await route(o.desk, req);
    } catch (err) {
      if (err instanceof OperatorRefusal)
        return problem(REFUSALS[err.kind].status, REFUSALS[err.kind].title, err.message, err.extra);
      if (err instanceof DoorStatus) return problem(err.status, err.title, err.message);
      o.log.error('operator API call failed', { error: String(err) });
      return problem(500, 'Internal error', 'The operator API could not answer; the deployment log says why.');
    }
  };
}

async function route(desk: OperatorDesk, req: Request): Promise<Response> {
  const path = new URL(req.url).pathname.replace(/\/+$/, '') || '/';
  const m =
    /^\/businesses(?:\/([^/]+)(?:\/(hosts|payment-account|suspend|resume|invite|domains|export)(?:\/([^/]+)\/(verify))?)?)?$/.exec(
      path,
    );
  if (!m || (m[3] && m[2] !== 'domains'))
    throw new OperatorRefusal('not_found', `The operator API has no ${path}; it serves /businesses.`);
  const allow = (method: string) => {
    if (req.method !== method) throw new DoorStatus(405, 'Method not allowed', `${path} takes ${method}.`);
  };
  if (!m[1]) {
    if (req.method === 'GET') return json(200, { businesses: await desk.list() });
    allow('POST');
    const input = await body(req);
    return json(201, {
      business: await desk.create(input.business, input.hosts, {
        paymentAccount: input.payment_account,
        ownerEmail: input.owner_email,
      }),
    });
  }
  const id = safeDecode(m[1]);
  switch (m[2]) {
    case undefined: {
      if (req.method === 'DELETE') return json(200, await desk.remove(id, (await body(req, true)).confirm));
      allow('GET');
      const b = await desk.get(id);
      if (!b) throw new OperatorRefusal('not_found', `No hosted business has the id ${JSON.stringify(id)}.`);
      return json(200, { business: b });
    }
    case 'hosts':
      allow('PUT');
      return json(200, { business: await desk.setHosts(id, (await body(req)).hosts) });
    case 'payment-account':
      allow('PUT');
      return json(200, { business: await desk.setPaymentAccount(id, (await body(req)).payment_account) });
    case 'export': {
      allow('GET');
      const data = await desk.exportBusiness(id);
      return new Response(data, {
        status: 200,
        headers: {
          ...HEADERS,
          'Content-Type': 'application/vnd.sqlite3',
          'Content-Disposition': `attachment; filename="${id.replace(/[^A-Za-z0-9_-]/g, '_')}.db"`,
        },
      });
    }
    case 'domains':
      allow('POST');
      if (m[3]) return json(200, { business: await desk.verifyDomain(id, safeDecode(m[3])) });
      return json(201, { business: await desk.addDomain(id, (await body(req)).domain) });
    case 'invite':
      allow('POST');
      return json(202, { business: await desk.invite(id, (await body(req)).email) });
    case 'suspend':
      allow('POST');
      return json(200, { business: await desk.suspend(id, (await body(req, true)).reason) });
    default:
      allow('POST');
      return json(200, { business: await desk.resume(id) });
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new OperatorRefusal('invalid', 'The id in the path is not valid percent-encoding.');
  }
}

async function body(req: Request, optional = false): Promise<Record<string, unknown>> {
  if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY)
    throw new DoorStatus(413, 'Payload too large', `The body is over ${MAX_BODY} characters.`);
  const text = await req.text();
  if (text.length > MAX_BODY)
    throw new DoorStatus(413, 'Payload too large', `The body is over ${MAX_BODY} characters.`);
  if (optional && text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OperatorRefusal('invalid', 'The body must be a JSON object.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new OperatorRefusal('invalid', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}
