/**
 * One MCP server factory for every transport: a low-level SDK `Server` whose `tools/list` and
 * `tools/call` come from the operations table. The door unwraps `_meta.usp`, hands the call to the
 * pipeline, and wraps the result as `structuredContent` + a text summary; protocol errors become
 * JSON-RPC errors with the USP codes, business outcomes stay results (with isError set when one is an error).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError as SdkProtocolError, Server } from '@modelcontextprotocol/server';
import {
  META_WEBHOOK_RESOURCE,
  WEBHOOK_RESOURCE_PREFIX,
  ProtocolError,
  callerCorrelationId,
  deprecatedNameWarning,
  isLoopbackAddress,
  PLATFORM_MESSAGES_CAPABILITY,
  unknownMemberWarnings,
  correlationIdOf,
  type Business,
  type HttpEvidence,
  type OperationDef,
  type OperationRequest,
  type Pipeline,
  type CallScope,
  type ScopeResolver,
} from '../../operations/index.js';
import { SERVER_INSTRUCTIONS } from './descriptions.js';
import { JSON_RPC, errorSentence, toJsonRpcError } from './errors.js';
import type { NotifiableSession } from './hub.js';
import { summarize } from './summary.js';
import { summarizeRegistry } from './registry-summary.js';
import { metaMembers, mcpTools } from './tools.js';
import { VIEW_RESOURCES, ViewNotBuilt, readView, viewByUri } from './app-views.js';
import { noteRate, rateNoteOf, type RateNote } from './rate-note.js';
import { META_VIEW, viewData } from './view-data.js';

type ListedTools = import('@modelcontextprotocol/server').ListToolsResult['tools'];
type CallResult = import('@modelcontextprotocol/server').CallToolResult;

export const SERVER_INFO = { name: 'usp-server', version: '0.1.0' };

export interface McpDoorDeps {
  pipeline: Pipeline;
  /** Over HTTP: the business (or role) each request is for; a session keeps the one it was opened for. */
  scopeOf?: ScopeResolver;
  /** A transport without requests (stdio, in memory): the one scope it serves. */
  scope?: CallScope;
  /** The operations served as tools (default: the business's); the registry role passes its own. */
  operations?: readonly OperationDef[];
  /** What `initialize` tells the model this server is (default: a scheduling business). */
  instructions?: string;
  /** stdio: the platform profile a call acts under when it names none (chosen by whoever launched the process). */
  defaultProfile?: string;
}

/** The session a server instance serves; null for stateless (per-request) instances. */
export type SessionLike = Pick<
  NotifiableSession,
  'principals' | 'resources' | 'catalogSubscriber' | 'subscriptions'
> | null;

/** Events a read of the webhook resource returns (newest first). */
export const WEBHOOK_RESOURCE_EVENTS = 50;
/** Resource subscriptions one session may hold. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 64;

/** What every session's server instance of one door shares: built once, never per session. */
interface SharedParts {
  options: ConstructorParameters<typeof Server>[1];
  /** The `tools/list` answer. */
  toolList: { tools: ListedTools };
}

const shared = new WeakMap<McpDoorDeps, SharedParts>();

/**
 * The options object and the tool list of a door's servers, built on its first session and shared
 * by every later one (the SDK keeps a reference to the options and copies the capabilities; it
 * changes neither). Keyed by the door's deps, so the business and the registry role each get theirs.
 */
export function sharedParts(deps: McpDoorDeps): SharedParts {
  let parts = shared.get(deps);
  if (!parts) {
    parts = {
      // resources.subscribe: 2026-era clients listen on usp://webhooks/<principal hash> for their events.
      options: {
        capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
        instructions: deps.instructions ?? SERVER_INSTRUCTIONS,
      },
      toolList: Object.freeze({ tools: listedTools(deps.operations) }),
    };
    shared.set(deps, parts);
  }
  return parts;
}

const listed = new WeakMap<ReadonlyMap<string, unknown>, ListedTools>();

/** The `tools/list` answer of an operation set: one array per process, whatever the number of sessions. */
function listedTools(operations: readonly OperationDef[] | undefined): ListedTools {
  const table = mcpTools(operations);
  let tools = listed.get(table);
  if (!tools) {
    // A former name answers for one release but is not offered: a model reads only the current one.
    tools = Object.freeze([...table.values()].filter((e) => !e.former).map((e) => e.tool)) as unknown as ListedTools;
    listed.set(table, tools);
  }
  return tools;
}

// The MCP Apps views are the listed resources; the webhook resources are per principal (a template).
const LISTED_RESOURCES = Object.freeze({ resources: VIEW_RESOURCES });
const RESOURCE_TEMPLATES = Object.freeze({
  resourceTemplates: Object.freeze([
    Object.freeze({
      uriTemplate: `${WEBHOOK_RESOURCE_PREFIX}{principal_hash}`,
      name: 'usp-webhooks',
      description:
        'Booking and waitlist events of one platform principal; subscribe (resources/subscribe, or subscriptions/listen on the stateless revision) to receive notifications/resources/updated, and read it for your recent events, newest first. Each tool result names yours in _meta["dev.usp-server/webhook_resource"] (also, deprecated, in _meta.usp.webhook_resource).',
      mimeType: 'application/json',
    }),
  ]),
});
const listResources = async () => LISTED_RESOURCES as never;
const listResourceTemplates = async () => RESOURCE_TEMPLATES as never;

/**
 * The server instance of one session (or one stateless request). The SDK wants an instance per
 * transport; what does not depend on the session (options, tool list, fixed answers) is shared,
 * so an idle session costs the SDK's own per-connection state and little more.
 */
export function createMcpServer(deps: McpDoorDeps, session: SessionLike, sessionScope?: CallScope): Server {
  const parts = sharedParts(deps);
  /** The scope of a request: the session's (or the door's only one), else the one the HTTP door resolved for this request. */
  const scopeOf = (ctx: unknown): CallScope => {
    const scope =
      sessionScope ??
      (ctx as { http?: { authInfo?: { extra?: { scope?: CallScope } } } }).http?.authInfo?.extra?.scope ??
      deps.scope;
    if (!scope) throw new Error('the MCP door has no scope for this request');
    return scope;
  };
  const server = new Server(SERVER_INFO, parts.options);
  server.setRequestHandler('resources/list', listResources);
  server.setRequestHandler('resources/templates/list', listResourceTemplates);
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = String((request.params as { uri?: unknown }).uri ?? '');
    const view = viewByUri(uri);
    if (view) return readViewOrFail(view) as never;
    const scope = session?.principals && uri.startsWith(WEBHOOK_RESOURCE_PREFIX) ? scopeOf(ctx) : undefined;
    const principal = scope ? [...session!.principals!].find((p) => scope.webhookResourceUri(p) === uri) : undefined;
    if (!scope || !principal) throw resourceNotFound(uri, session !== null);
    // From the store's outbox, so the answer is the same whichever process (or door) delivered the events.
    const events = await deps.pipeline.recentEvents(scope, principal, WEBHOOK_RESOURCE_EVENTS);
    const text = JSON.stringify({
      events,
      note: `Your ${events.length} most recent booking and waitlist events (at most ${WEBHOOK_RESOURCE_EVENTS}), newest first; each has its event_id.`,
    });
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  });
  // Subscriptions (2025-era sessions): notifications/resources/updated for the webhook resource of a
  // principal the session acts for. Any URI is accepted; one we never change simply never updates.
  server.setRequestHandler('resources/subscribe', async (request) => {
    const uri = subscriptionUri(request.params);
    if (session && !session.subscriptions?.has(uri)) {
      if ((session.subscriptions?.size ?? 0) >= MAX_SUBSCRIPTIONS_PER_SESSION) {
        const err = new ProtocolError(
          'limit_exceeded',
          `A session may hold ${MAX_SUBSCRIPTIONS_PER_SESSION} resource subscriptions; unsubscribe from one first.`,
          {
            detailCode: 'limit_exceeded',
          },
        );
        throw rpcError(err);
      }
      (session.subscriptions ??= new Set()).add(uri);
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    session?.subscriptions?.delete(subscriptionUri(request.params));
    return {};
  });
  const toolList = parts.toolList;
  server.setRequestHandler('tools/list', async () => toolList as never);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const authInfo = (ctx as { http?: { authInfo?: { extra?: { evidence?: HttpEvidence } } } }).http?.authInfo;
    return (await callTool(
      deps,
      request.params as { name: string; arguments?: unknown },
      authInfo?.extra?.evidence,
      session,
      scopeOf(ctx),
      rateNoteOf(authInfo),
    )) as unknown as CallResult;
  });
  return server;
}

function subscriptionUri(params: unknown): string {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > 2048) {
    throw rpcError(
      new ProtocolError('invalid_request', 'uri: must be the resource URI to (un)subscribe, as a string.', {
        errors: [{ field: 'uri', message: 'required string' }],
      }),
    );
  }
  return uri;
}

function readViewOrFail(view: Parameters<typeof readView>[0]) {
  try {
    return readView(view);
  } catch (err) {
    if (!(err instanceof ViewNotBuilt)) throw err;
    throw new SdkProtocolError(JSON_RPC.server_error, errorSentence('server_error', err.message), {
      code: 'server_error',
      content: err.message,
      uri: view.uri,
    });
  }
}

function resourceNotFound(uri: string, stateful: boolean): SdkProtocolError {
  const content = uri.startsWith(WEBHOOK_RESOURCE_PREFIX)
    ? stateful
      ? `No resource ${uri.slice(0, 200)} for this session: read the webhook resource named in _meta["dev.usp-server/webhook_resource"] of one of your tool results, in the same session.`
      : 'The webhook resource is read in a session (initialize first); without one, its events arrive in the params of notifications/resources/updated.'
    : `No resource ${uri.slice(0, 200)}: this server's resources are its views (resources/list) and the webhook resources (resources/templates/list).`;
  return new SdkProtocolError(JSON_RPC.invalid_params, errorSentence('resource_not_found', content), {
    code: 'resource_not_found',
    content,
    uri: uri.slice(0, 200),
  });
}

function rpcError(err: ProtocolError, correlationId?: string, biz?: Business): SdkProtocolError {
  const e = toJsonRpcError(err, correlationId, biz);
  return new SdkProtocolError(e.code, e.message, e.data);
}

export async function callTool(
  deps: McpDoorDeps,
  params: { name: string; arguments?: unknown },
  evidence: HttpEvidence | undefined,
  session: SessionLike,
  scope: CallScope,
  /** Where the HTTP door keeps what the answer says of the call's rate limit (absent on stdio). */
  rateNote?: RateNote,
): Promise<Record<string, unknown>> {
  // The caller's id (from _meta.usp, else the USP-Correlation-Id header) rides on every answer, errors included.
  const correlationId = correlationIdOf(sentCorrelationId(params.arguments), evidence?.headers['usp-correlation-id']);
  const entry = mcpTools(deps.operations).get(params.name);
  if (!entry) {
    throw rpcError(
      new ProtocolError(
        'unknown_tool',
        `No tool named ${JSON.stringify(String(params.name)).slice(0, 200)}; call tools/list for the available tools.`,
      ),
      correlationId,
    );
  }
  const args = params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw rpcError(
      new ProtocolError('invalid_request', 'arguments must be a JSON object.', {
        errors: [{ field: 'arguments', message: 'not an object' }],
      }),
      correlationId,
    );
  }
  const { _meta: rawMeta, ...input } = args as Record<string, unknown>;
  let req: OperationRequest;
  let generatedKey: string | undefined;
  try {
    const meta = readMeta(rawMeta, metaMembers(entry.op));
    req = {
      correlationId,
      input,
      profile: meta.profile ?? deps.defaultProfile ?? null,
      // A write sent without a key gets one, returned in _meta.usp: the caller can retry with it.
      idempotencyKey: meta.idempotency_key ?? (entry.op.mutating ? (generatedKey = randomUUID()) : null),
      ifMatch: meta.if_match ?? null,
      locale: localeOf(rawMeta),
      // The proof digest covers the raw arguments; the HTTP evidence carries signatures and bearer keys.
      presented: {
        binding: 'mcp',
        mcp: {
          tool: entry.tool.name,
          rawArguments: args as Record<string, unknown>,
          authorization: meta.authorization,
        },
        http: evidence,
      },
    };
  } catch (err) {
    if (err instanceof ProtocolError) throw rpcError(err, correlationId);
    throw err;
  }
  const res = await deps.pipeline.execute(entry.op, req, scope);
  noteRate(rateNote, res);
  if (!res.ok) throw rpcError(withIgnoredMembers(res.error, entry.op, input), correlationId, scope.business?.current());
  if (session && res.caller.principal && !res.caller.business)
    (session.principals ??= new Set()).add(res.caller.principal);
  if (session && res.caller.credential) (session.resources ??= new Set()).add(res.caller.credential.id);
  if (session && entry.op.subscribesSessionToCatalog && res.messages.length === 0) session.catalogSubscriber = true;

  // Unknown members are ignored (the protocol's forward compatibility) but never silently: each is a warning naming it.
  // (An operation that already answered about a member, like update's immutable ones, says it once.)
  const ignored = unknownMemberWarnings(entry.op.input, input).filter(
    (w) => !res.messages.some((m) => m.path === w.path),
  );
  if (entry.former) ignored.push(deprecatedNameWarning(entry.op, entry.tool.name, entry.former.use));
  const messages = ignored.length ? [...res.messages, ...ignored] : res.messages;
  const structuredContent = { usp: res.usp, ...res.data, messages };
  const uspMeta: Record<string, unknown> = { correlation_id: correlationId };
  // Ours, so under our key; `_meta.usp.webhook_resource` (the spec's namespace) is kept one release, deprecated.
  const webhookResource =
    res.caller.principal && !res.caller.business ? scope.webhookResourceUri(res.caller.principal) : undefined;
  if (webhookResource) uspMeta.webhook_resource = webhookResource;
  if (generatedKey) uspMeta.idempotency_key = generatedKey;
  // The snapshot the call ran with: the words describe the business as the call saw it.
  const biz = res.business;
  const text = !biz
    ? summarizeRegistry(entry.tool.name, res.data as Record<string, any>, messages)
    : summarize(entry.tool.name, res.data as Record<string, any>, messages, {
        zone: biz.zone,
        currency: biz.def.business.currency,
        business: biz,
        now: deps.pipeline.now(),
        platformTells: res.caller.platform?.capabilities.includes(PLATFORM_MESSAGES_CAPABILITY) ?? false,
        // stdio and the in-process transport are on this machine; over HTTP, a loopback client is too.
        local:
          evidence === undefined || (evidence.clientAddress !== undefined && isLoopbackAddress(evidence.clientAddress)),
        ...(typeof input.party_size === 'number' && Number.isInteger(input.party_size) && input.party_size > 0
          ? { partySize: input.party_size }
          : {}),
      });
  const result: Record<string, unknown> = {
    structuredContent,
    content: [{ type: 'text', text }],
    _meta: { usp: uspMeta, ...(webhookResource ? { [META_WEBHOOK_RESOURCE]: webhookResource } : {}) },
  };
  // A tool with a view: what the view shows beside the result (a client without views ignores it).
  if (entry.op.view && biz)
    (result._meta as Record<string, unknown>)[META_VIEW] = viewData(
      biz,
      res.data as Record<string, any>,
      deps.pipeline.now(),
    );
  if (messages.some((m) => m.type === 'error')) result.isError = true;
  return result;
}

/** A refused input that also had unknown members says so: `ids: is required` beside a `service_ids` that meant it. */
function withIgnoredMembers(err: ProtocolError, op: OperationDef, input: Record<string, unknown>): ProtocolError {
  if (err.code !== 'invalid_request' || !err.errors) return err;
  const ignored = unknownMemberWarnings(op.input, input);
  if (ignored.length === 0) return err;
  return new ProtocolError(err.code, `${err.message} (${ignored.map((m) => m.content).join(' ')})`, {
    detailCode: err.detailCode,
    errors: err.errors,
    extra: err.extra,
    retryAfter: err.retryAfter,
  });
}

/** `_meta.usp.correlation_id` as sent, read leniently: even a call refused for its metadata answers with it. */
export function sentCorrelationId(args: unknown): string | undefined {
  const meta = args && typeof args === 'object' ? (args as { _meta?: unknown })._meta : undefined;
  const usp = meta && typeof meta === 'object' ? (meta as { usp?: unknown }).usp : undefined;
  return usp && typeof usp === 'object'
    ? callerCorrelationId((usp as { correlation_id?: unknown }).correlation_id)
    : undefined;
}

export interface UspMeta {
  profile?: string;
  idempotency_key?: string;
  if_match?: string;
  correlation_id?: string;
  authorization?: { mechanism: string; credential?: string; proof?: string };
}

/** `_meta.usp` is a closed object per access tier (openrpc McpUspMeta*): unknown members are refused. */
/** The buyer's language an MCP host may state beside `_meta.usp` (a key of our own, prefixed as MCP asks); the pipeline checks it is a language tag. */
export const LOCALE_META_KEY = 'dev.usp-server/locale';
function localeOf(raw: unknown): string | undefined {
  const v = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[LOCALE_META_KEY] : undefined;
  return typeof v === 'string' && v.length <= 100 ? v : undefined;
}

export function readMeta(raw: unknown, allowed: readonly string[]): UspMeta {
  if (raw === undefined) return {};
  const bad = (field: string, message: string) =>
    new ProtocolError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('_meta', 'must be an object');
  const usp = (raw as Record<string, unknown>).usp;
  if (usp === undefined) return {};
  if (typeof usp !== 'object' || usp === null || Array.isArray(usp)) throw bad('_meta.usp', 'must be an object');
  const out: UspMeta = {};
  for (const [k, v] of Object.entries(usp)) {
    if (!allowed.includes(k)) throw bad(`_meta.usp.${k}`, 'is not allowed on this tool');
    if (k === 'authorization') {
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw bad('_meta.usp.authorization', 'must be an object');
      const a = v as Record<string, unknown>;
      for (const m of Object.keys(a))
        if (!['mechanism', 'credential', 'proof'].includes(m))
          throw bad(`_meta.usp.authorization.${m}`, 'is not allowed');
      if (typeof a.mechanism !== 'string') throw bad('_meta.usp.authorization.mechanism', 'is required');
      for (const m of ['credential', 'proof'])
        if (a[m] !== undefined && typeof a[m] !== 'string')
          throw bad(`_meta.usp.authorization.${m}`, 'must be a string');
      out.authorization = a as UspMeta['authorization'];
      continue;
    }
    if (typeof v !== 'string' || v.length === 0 || v.length > 2048)
      throw bad(`_meta.usp.${k}`, 'must be a non-empty string');
    if (k === 'correlation_id' && !callerCorrelationId(v))
      throw bad('_meta.usp.correlation_id', 'must be 1 to 256 visible ASCII characters');
    (out as Record<string, string>)[k] = v;
  }
  return out;
}
