/**
 * The REST door (spec 9.1): a Hono app whose routes are generated from the operations table.
 * It frames bytes and headers into an OperationRequest and the result back into JSON; every
 * decision is the pipeline's.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { METHOD_NAME_ALL } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';
import {
  OPERATIONS,
  ProtocolError,
  jsonDoorRows,
  correlationIdOf,
  deprecatedNameWarning,
  rateRuleOf,
  type HttpEvidence,
  type Logger,
  type Message,
  type OperationDef,
  type OperationRequest,
  type Pipeline,
  type RestRoute,
  type CallScope,
  type ScopeResolver,
} from '../../operations/index.js';
import { rateLimitFields, type RateQuota } from '../../security/index.js';
import { faultText, jsonText, parseAgent, problemResponse } from '../../web/index.js';

export interface RestAppOptions {
  pipeline: Pipeline;
  /** The business (or role) a request is for: each call and each document is that scope's. */
  scopeOf: ScopeResolver;
  /** The scope's profile document (served at /.well-known/usp). */
  profile: (scope: CallScope) => Record<string, unknown>;
  /** Our OpenAPI document for the scope (served at /openapi.json). */
  openapi: (scope: CallScope) => Record<string, unknown>;
  /** The request came through a trusted TLS-terminating proxy: its X-Forwarded-Proto / X-Forwarded-Host are believed (the URL signatures cover). */
  viaProxy?: (c: Context) => boolean;
  /** The client's address (per-address rate limits), as the server resolves it; absent in-process. */
  clientAddress?: (c: Context) => string | undefined;
  /** The operations served (the business's set unless given: a registry serves its own). */
  operations?: readonly OperationDef[];
  /** Seconds the profile may be cached (at least 60, spec 8.2.2). */
  profileMaxAge?: number;
  /** Tokens per minute of each rate-limit class, announced on each answer as `RateLimit-Policy`; absent: limits are off. */
  rateLimits?: Readonly<Record<string, number>>;
  /** Where a fault the door lets escape is logged (the server's logger); absent in-process: not logged. */
  log?: Logger;
}

/**
 * The operation's limit as the IETF draft's `RateLimit-Policy` (spec 10.2.2 SHOULD): its class, the
 * tokens a subject gets (`q`) per window of 60 s (`w`). The call's answer is the same whatever the
 * caller has left; a 429 says how long to wait in Retry-After.
 */
function rateLimitPolicy(op: OperationDef, limits: RestAppOptions['rateLimits']): string | undefined {
  const bucket = limits ? rateRuleOf(op)?.bucket : undefined;
  const q = bucket ? limits![bucket] : undefined;
  return bucket && q ? `"${bucket}";q=${q};w=60` : undefined;
}

const JSON_TYPE = 'application/json';
const JSON_HEADERS = { 'Content-Type': JSON_TYPE };

/** Where a request carries its deployment's options into the shared route table. */
type RestEnv = { uspRest: RestAppOptions };
const optsOf = (c: Context): RestAppOptions => (c.env as RestEnv).uspRest;

/**
 * The REST door of one deployment (a business, or a role such as the registry): a thin front that
 * hands each request, with this deployment's options, to the route table its operations share with
 * every other deployment in the process. The routes depend on the operations table only; everything
 * that depends on the business (the scope, its profile and documents, its limits, its log) is in
 * the options, read per request. A process hosting many businesses builds the routes once instead
 * of once per business (about 84 KB of heap and the route compilation each; docs/SCALING.md).
 */
export function createRestApp(opts: RestAppOptions): RestApp {
  const routes = routeTable(opts.operations ?? OPERATIONS);
  // A plain function, not a Hono app of its own: a front app was one more router per business.
  return { fetch: (req, env) => routes.fetch(req, { ...(env as object | undefined), uspRest: opts }) };
}

/** The REST door's entry: the host hands it each request it claims, with the request's env. */
export interface RestApp {
  fetch(req: Request, env?: unknown): Response | Promise<Response>;
}

const tables = new Map<readonly OperationDef[], Hono>();

/** The routes of an operations table, built once per process. */
function routeTable(operations: readonly OperationDef[]): Hono {
  let app = tables.get(operations);
  if (app) return app;
  app = new Hono();
  tables.set(operations, app);

  app.get('/.well-known/usp', (c) => {
    const opts = optsOf(c);
    c.header('Cache-Control', `public, max-age=${Math.max(60, opts.profileMaxAge ?? 300)}`);
    return c.json(opts.profile(opts.scopeOf(c.req.raw)));
  });
  app.get('/openapi.json', (c) => {
    const opts = optsOf(c);
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(opts.openapi(opts.scopeOf(c.req.raw)));
  });

  // Each operation's route, and the former route a row keeps for one release (answered, marked deprecated).
  const byPath = new Map<string, Array<{ op: OperationDef; route: RestRoute; former: boolean }>>();
  const add = (op: OperationDef, route: RestRoute, former: boolean) =>
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), { op, route, former }]);
  for (const op of jsonDoorRows(operations)) {
    add(op, op.rest, false);
    if (op.formerly?.rest) add(op, op.formerly.rest, true);
  }
  // A path's other methods answer 405. Each is routed for the usual methods, where a route of its own
  // would have been, so that a request matches one route and Hono calls it without composing a chain
  // (with a catch-all route per path every call matched two); any other method finds the path's 405
  // from `notFound`, by the same order of paths.
  const allowedAt = new TrieRouter<string>();
  for (const [path, ops] of byPath) {
    const honoPath = path.replace(/\{(\w+)\}/g, ':$1');
    for (const { op, route, former } of ops) {
      app.on(route.method, honoPath, (c) => (former ? handleFormer(c, op, optsOf(c)) : handle(c, op, optsOf(c))));
    }
    const methods: string[] = ops.map((o) => o.route.method);
    const allowed = methods.join(', ');
    const others = ROUTED_METHODS.filter((m) => !methods.includes(m));
    if (others.length > 0) app.on(others, honoPath, (c) => notAllowed(c, allowed));
    allowedAt.add(METHOD_NAME_ALL, honoPath, allowed);
  }

  app.notFound((c) => {
    const allowed = allowedAt.match(c.req.method, c.req.path)[0][0]?.[0];
    if (allowed !== undefined) return notAllowed(c, allowed);
    return problem(c, new ProtocolError('not_found', `No USP endpoint at ${c.req.path}.`));
  });
  app.onError((err, c) => {
    optsOf(c).log?.error('unexpected REST failure', { path: c.req.path, error: faultText(err) });
    return problem(c, new ProtocolError('server_error', 'The business could not process the request.'));
  });
  return app;
}

/**
 * A call through an operation's former route: answered like the new one, with a `Deprecation`
 * header (RFC 9745), a `Link` to its successor and a `deprecated_name` warning in the body.
 */
async function handleFormer(c: Context, op: OperationDef, opts: RestAppOptions): Promise<Response> {
  const formerly = op.formerly!;
  const res = await handle(
    c,
    op,
    opts,
    deprecatedNameWarning(op, `${formerly.rest!.method} ${formerly.rest!.path}`, `${op.rest.method} ${op.rest.path}`),
  );
  res.headers.set('Deprecation', `@${Math.floor(Date.parse(`${formerly.since}T00:00:00Z`) / 1000)}`);
  res.headers.set('Link', `<${op.rest.path}>; rel="successor-version"`);
  return res;
}

async function handle(c: Context, op: OperationDef, opts: RestAppOptions, warning?: Message): Promise<Response> {
  const seen: { rate?: RateQuota } = {};
  const res = await answer(c, op, opts, seen, warning);
  // What the call's rate limit left (draft-ietf-httpapi-ratelimit-headers), else the policy alone.
  const quota = seen.rate;
  const policy = quota ? undefined : rateLimitPolicy(op, opts.rateLimits);
  const fields = quota ? rateLimitFields(quota) : policy ? { 'RateLimit-Policy': policy } : undefined;
  if (res instanceof Response) {
    if (fields) for (const [name, value] of Object.entries(fields)) res.headers.set(name, value);
    return res;
  }
  // An answer's headers as one plain record: the Node adapter writes it as it is (no `Headers` made).
  if (res.text === null) return new Response(null, { status: 204, headers: fields });
  return new Response(res.text, {
    status: res.status,
    headers: fields ? { ...JSON_HEADERS, ...fields } : JSON_HEADERS,
  });
}

/**
 * The call's answer: a problem as its Response, or the status and JSON text of a success (null for a
 * 204). `seen.rate`: the quota the pipeline's answer carries, for the RateLimit fields `handle` adds.
 */
async function answer(
  c: Context,
  op: OperationDef,
  opts: RestAppOptions,
  seen: { rate?: RateQuota },
  warning?: Message,
): Promise<Response | { status: number; text: string | null }> {
  let req: OperationRequest;
  try {
    const read = readRequest(c, op, opts);
    req = read instanceof Promise ? await read : read;
  } catch (err) {
    if (err instanceof ProtocolError) return problem(c, err);
    throw err;
  }
  const res = await opts.pipeline.execute(op, req, opts.scopeOf(c.req.raw));
  seen.rate = res.rate;
  if (!res.ok) return problem(c, res.error);
  if (res.status === 204) return { status: 204, text: null };
  const body: Record<string, unknown> = { usp: res.usp, ...res.data };
  const messages = warning ? [...res.messages, warning] : res.messages;
  if (messages.length > 0) body.messages = messages;
  // What the core shares between answers (frozen) is serialised once (src/web/json.ts).
  return { status: res.status, text: jsonText(body) };
}

/** The call as the pipeline takes it; read at once when the route takes no body (no promise to wait on). */
function readRequest(c: Context, op: OperationDef, opts: RestAppOptions): OperationRequest | Promise<OperationRequest> {
  if (op.rest.input === 'body' || (op.rest.input === 'none' && op.rest.method !== 'GET')) {
    // The host has already refused bodies over its limit (413).
    return c.req.arrayBuffer().then((bytes) => {
      const raw = new Uint8Array(bytes);
      return requestOf(c, opts, raw.byteLength > 0 && op.rest.input === 'body' ? jsonInput(c, raw) : {}, raw);
    });
  }
  return requestOf(c, opts, op.rest.input === 'query' ? { ...c.req.query() } : {}, new Uint8Array(0));
}

/** A JSON object body as the call's input, or the problem it is. */
function jsonInput(c: Context, raw: Uint8Array): Record<string, unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== JSON_TYPE && !type.endsWith('+json')) {
    throw new ProtocolError('unsupported_media_type', 'Send the request body as application/json.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new ProtocolError('invalid_request', 'The request body is not valid JSON.', {
      errors: [{ field: '(body)', message: 'malformed JSON' }],
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ProtocolError('invalid_request', 'The request body must be a JSON object.', {
      errors: [{ field: '(body)', message: 'not an object' }],
    });
  }
  return parsed as Record<string, unknown>;
}

function requestOf(
  c: Context,
  opts: RestAppOptions,
  input: Record<string, unknown>,
  raw: Uint8Array,
): OperationRequest {
  Object.assign(input, c.req.param());
  const headers = headerRecord(c);
  return {
    input,
    profile: parseAgent(c.req.header('usp-agent')),
    idempotencyKey: c.req.header('idempotency-key') ?? null,
    ifMatch: c.req.header('if-match') ?? null,
    correlationId: correlationOf(c),
    // The exact bytes and headers: signatures, digests and DPoP proofs are checked below the door.
    presented: { binding: 'rest', http: evidence(c, opts, headers, raw) },
  };
}

/**
 * The request's fields as one record: names lower-cased, a repeated field's values joined as
 * `Headers` joins them (`; ` for cookies), the last Set-Cookie kept. From the Node adapter's own
 * request (its light headers over the Node request's), read off the raw fields: building a `Headers`
 * to copy it was some 2% of a GET's CPU (docs/DECISIONS.md, "REST door over HTTP").
 */
function headerRecord(c: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  const sent = c.req.raw.headers;
  const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.rawHeaders;
  if (raw && Object.getPrototypeOf(sent) !== Headers.prototype) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      if (name.startsWith(':')) continue;
      const prior = Object.hasOwn(headers, name) ? headers[name] : undefined;
      const value = raw[i + 1];
      headers[name] =
        prior === undefined || name === 'set-cookie' ? value : `${prior}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
    return headers;
  }
  sent.forEach((v, k) => (headers[k] = v));
  return headers;
}

/**
 * The caller's id (or a fresh one) rides into the pipeline's logs: the host chose it and puts it on
 * the response (src/server/host.ts); in-process, without the host, the door reads it itself.
 */
function correlationOf(c: Context): string {
  return (
    (c.env as { correlationId?: string } | undefined)?.correlationId ??
    correlationIdOf(c.req.header('usp-correlation-id'))
  );
}

/** The request as evidence; its URL is worked out only when a signature or a proof asks for it. */
function evidence(c: Context, opts: RestAppOptions, headers: Record<string, string>, body: Uint8Array): HttpEvidence {
  let url: string | undefined;
  return {
    method: c.req.method,
    get url() {
      return (url ??= publicUrl(c, opts));
    },
    headers,
    body,
    clientAddress: opts.clientAddress?.(c),
  };
}

/** The URL as the client addressed it (behind a TLS-terminating proxy, the forwarded scheme). */
function publicUrl(c: Context, opts: RestAppOptions): string {
  const url = new URL(c.req.url);
  if (opts.viaProxy?.(c)) {
    const proto = c.req.header('x-forwarded-proto');
    if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
    const host = c.req.header('x-forwarded-host');
    if (host) url.host = host;
  }
  return url.toString();
}

/** The methods a path's 405 is routed for; any other finds it from `notFound`. */
const ROUTED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** 405 with the methods the path allows. */
function notAllowed(c: Context, allowed: string): Response {
  // problem() builds a fresh Response, so the Allow header goes on that response itself.
  const res = problem(
    c,
    new ProtocolError('method_not_allowed', `${c.req.method} is not allowed here; use ${allowed}.`),
  );
  res.headers.set('Allow', allowed);
  return res;
}

function problem(c: Context, err: ProtocolError): Response {
  return problemResponse(c.req.path, err);
}
