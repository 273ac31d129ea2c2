/**
 * One MCP server factory for every transport: a low-level SDK `Server` whose `tools/list` and
 * `tools/call` come from the operations table. The door unwraps `_meta.usp`, hands the call to the
 * pipeline, and wraps the result as `structuredContent` + a text summary; protocol errors become
 * JSON-RPC errors with the USP codes, business outcomes stay results (with isError, decision D13).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError as SdkProtocolError, Server } from '@modelcontextprotocol/server';
import { ProtocolError, type HttpEvidence, type OperationRequest, type Pipeline } from '../../operations/index.js';
import { SERVER_INSTRUCTIONS } from './descriptions.js';
import { toJsonRpcError } from './errors.js';
import type { NotifiableSession } from './hub.js';
import { summarize } from './summary.js';
import { WEBHOOK_RESOURCE_PREFIX, webhookResourceUri } from './webhook-resource.js';
import { metaMembers, mcpTools } from './tools.js';

type ListedTools = import('@modelcontextprotocol/server').ListToolsResult['tools'];
type CallResult = import('@modelcontextprotocol/server').CallToolResult;

export const SERVER_INFO = { name: 'usp-server', version: '0.1.0' };

export interface McpDoorDeps {
  pipeline: Pipeline;
}

/** The session a server instance serves; null for stateless (per-request) instances. */
export type SessionLike = Pick<NotifiableSession, 'principals' | 'resources' | 'catalogSubscriber'> | null;

export function createMcpServer(deps: McpDoorDeps, session: SessionLike): Server {
  // resources.subscribe: 2026-era clients listen on usp://webhooks/<principal hash> for their events.
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
    instructions: SERVER_INSTRUCTIONS,
  });
  server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${WEBHOOK_RESOURCE_PREFIX}{principal_hash}`,
        name: 'usp-webhooks',
        description: 'Booking and waitlist events of one platform principal; subscribe (subscriptions/listen) to receive them as notifications/resources/updated. Each tool result names yours in _meta.usp.webhook_resource.',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler('resources/read', async (request) => {
    const uri = String((request.params as { uri?: unknown }).uri ?? '');
    if (!uri.startsWith(WEBHOOK_RESOURCE_PREFIX)) {
      throw new SdkProtocolError(-32602, 'not_found', { code: 'resource_not_found', content: `No resource ${uri.slice(0, 200)}.`, uri });
    }
    const text = JSON.stringify({ note: 'Events arrive as notifications/resources/updated on this URI, with the event in params.' });
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  });
  const tools = [...mcpTools().values()].map((e) => e.tool) as unknown as ListedTools;
  server.setRequestHandler('tools/list', async () => ({ tools }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const evidence = (ctx as { http?: { authInfo?: { extra?: { evidence?: HttpEvidence } } } }).http?.authInfo?.extra?.evidence;
    return (await callTool(deps, request.params as { name: string; arguments?: unknown }, evidence, session)) as unknown as CallResult;
  });
  return server;
}

function rpcError(err: ProtocolError, correlationId?: string): SdkProtocolError {
  const e = toJsonRpcError(err, correlationId);
  return new SdkProtocolError(e.code, e.message, e.data);
}

export async function callTool(
  deps: McpDoorDeps,
  params: { name: string; arguments?: unknown },
  evidence: HttpEvidence | undefined,
  session: SessionLike,
): Promise<Record<string, unknown>> {
  const entry = mcpTools().get(params.name);
  if (!entry) {
    throw rpcError(new ProtocolError('unknown_tool', `No tool named ${JSON.stringify(String(params.name)).slice(0, 200)}; call tools/list for the available tools.`, { detailCode: 'unknown_tool' }));
  }
  const args = params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw rpcError(new ProtocolError('invalid_request', 'arguments must be a JSON object.', { errors: [{ field: 'arguments', message: 'not an object' }] }));
  }
  const { _meta: rawMeta, ...input } = args as Record<string, unknown>;
  let correlationId: string | undefined;
  let req: OperationRequest;
  try {
    const meta = readMeta(rawMeta, metaMembers(entry.op));
    correlationId = meta.correlation_id;
    req = {
      input,
      profile: meta.profile ?? null,
      idempotencyKey: meta.idempotency_key ?? null,
      ifMatch: meta.if_match ?? null,
      // The proof digest covers the raw arguments; the HTTP evidence carries signatures and bearer keys.
      presented: { binding: 'mcp', mcp: { tool: entry.tool.name, rawArguments: args as Record<string, unknown>, authorization: meta.authorization }, http: evidence },
    };
  } catch (err) {
    if (err instanceof ProtocolError) throw rpcError(err, correlationId);
    throw err;
  }
  correlationId ??= randomUUID();
  const res = await deps.pipeline.execute(entry.op, req);
  if (!res.ok) throw rpcError(res.error, correlationId);
  if (session && res.caller.principal && !res.caller.business) session.principals.add(res.caller.principal);
  if (session && res.caller.credential) session.resources.add(res.caller.credential.id);
  if (session && entry.op.name === 'create_feed_subscription' && res.messages.length === 0) session.catalogSubscriber = true;

  const structuredContent = { usp: res.usp, ...res.data, messages: res.messages };
  const uspMeta: Record<string, unknown> = { correlation_id: correlationId };
  if (res.caller.principal && !res.caller.business) uspMeta.webhook_resource = webhookResourceUri(res.caller.principal);
  const biz = deps.pipeline.business;
  const text = summarize(entry.tool.name, res.data as Record<string, any>, res.messages, { zone: biz.zone, currency: biz.def.business.currency });
  const result: Record<string, unknown> = {
    structuredContent,
    content: [{ type: 'text', text }],
    _meta: { usp: uspMeta },
  };
  if (res.messages.some((m) => m.type === 'error')) result.isError = true;
  return result;
}

interface UspMeta {
  profile?: string;
  idempotency_key?: string;
  if_match?: string;
  correlation_id?: string;
  authorization?: { mechanism: string; credential?: string; proof?: string };
}

/** `_meta.usp` is a closed object per access tier (openrpc McpUspMeta*): unknown members are refused. */
function readMeta(raw: unknown, allowed: readonly string[]): UspMeta {
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
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('_meta.usp.authorization', 'must be an object');
      const a = v as Record<string, unknown>;
      for (const m of Object.keys(a)) if (!['mechanism', 'credential', 'proof'].includes(m)) throw bad(`_meta.usp.authorization.${m}`, 'is not allowed');
      if (typeof a.mechanism !== 'string') throw bad('_meta.usp.authorization.mechanism', 'is required');
      for (const m of ['credential', 'proof']) if (a[m] !== undefined && typeof a[m] !== 'string') throw bad(`_meta.usp.authorization.${m}`, 'must be a string');
      out.authorization = a as UspMeta['authorization'];
      continue;
    }
    if (typeof v !== 'string' || v.length === 0 || v.length > 2048) throw bad(`_meta.usp.${k}`, 'must be a non-empty string');
    (out as Record<string, string>)[k] = v;
  }
  return out;
}
