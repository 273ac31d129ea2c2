/**
 * One MCP server factory for every transport: a low-level SDK `Server` whose `tools/list` and
 * `tools/call` come from the operations table. The door unwraps `_meta.usp`, hands the call to the
 * pipeline, and wraps the result as `structuredContent` + a text summary; protocol errors become
 * JSON-RPC errors with the USP codes, business outcomes stay results (with isError, decision D13).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError as SdkProtocolError, Server } from '@modelcontextprotocol/server';
import { ProtocolError } from '../../operations/index.js';
import { SERVER_INSTRUCTIONS } from './descriptions.js';
import { toJsonRpcError } from './errors.js';
import { summarize } from './summary.js';
import { metaMembers, mcpTools } from './tools.js';
export const SERVER_INFO = { name: 'usp-server', version: '0.1.0' };
export function createMcpServer(deps, session) {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS });
    const tools = [...mcpTools().values()].map((e) => e.tool);
    server.setRequestHandler('tools/list', async () => ({ tools }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
        const evidence = ctx.http?.authInfo?.extra?.evidence;
        return (await callTool(deps, request.params, evidence, session));
    });
    return server;
}
function rpcError(err, correlationId) {
    const e = toJsonRpcError(err, correlationId);
    return new SdkProtocolError(e.code, e.message, e.data);
}
export async function callTool(deps, params, evidence, session) {
    const entry = mcpTools().get(params.name);
    if (!entry) {
        throw rpcError(new ProtocolError('unknown_tool', `No tool named ${JSON.stringify(String(params.name)).slice(0, 200)}; call tools/list for the available tools.`, { detailCode: 'unknown_tool' }));
    }
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw rpcError(new ProtocolError('invalid_request', 'arguments must be a JSON object.', { errors: [{ field: 'arguments', message: 'not an object' }] }));
    }
    const { _meta: rawMeta, ...input } = args;
    let correlationId;
    let req;
    try {
        const meta = readMeta(rawMeta, metaMembers(entry.op));
        correlationId = meta.correlation_id;
        req = {
            input,
            profile: meta.profile ?? null,
            idempotencyKey: meta.idempotency_key ?? null,
            ifMatch: meta.if_match ?? null,
            // The proof digest covers the raw arguments; the HTTP evidence carries signatures and bearer keys.
            presented: { binding: 'mcp', mcp: { tool: entry.tool.name, rawArguments: args, authorization: meta.authorization }, http: evidence },
        };
    }
    catch (err) {
        if (err instanceof ProtocolError)
            throw rpcError(err, correlationId);
        throw err;
    }
    correlationId ??= randomUUID();
    const res = await deps.pipeline.execute(entry.op, req);
    if (!res.ok)
        throw rpcError(res.error, correlationId);
    if (session && res.caller.principal && !res.caller.business)
        session.principals.add(res.caller.principal);
    if (session && entry.op.name === 'create_feed_subscription' && res.messages.length === 0)
        session.catalogSubscriber = true;
    const structuredContent = { usp: res.usp, ...res.data, messages: res.messages };
    const biz = deps.pipeline.business;
    const text = summarize(entry.tool.name, res.data, res.messages, { zone: biz.zone, currency: biz.def.business.currency });
    const result = {
        structuredContent,
        content: [{ type: 'text', text }],
        _meta: { usp: { correlation_id: correlationId } },
    };
    if (res.messages.some((m) => m.type === 'error'))
        result.isError = true;
    return result;
}
/** `_meta.usp` is a closed object per access tier (openrpc McpUspMeta*): unknown members are refused. */
function readMeta(raw, allowed) {
    if (raw === undefined)
        return {};
    const bad = (field, message) => new ProtocolError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        throw bad('_meta', 'must be an object');
    const usp = raw.usp;
    if (usp === undefined)
        return {};
    if (typeof usp !== 'object' || usp === null || Array.isArray(usp))
        throw bad('_meta.usp', 'must be an object');
    const out = {};
    for (const [k, v] of Object.entries(usp)) {
        if (!allowed.includes(k))
            throw bad(`_meta.usp.${k}`, 'is not allowed on this tool');
        if (k === 'authorization') {
            if (typeof v !== 'object' || v === null || Array.isArray(v))
                throw bad('_meta.usp.authorization', 'must be an object');
            const a = v;
            for (const m of Object.keys(a))
                if (!['mechanism', 'credential', 'proof'].includes(m))
                    throw bad(`_meta.usp.authorization.${m}`, 'is not allowed');
            if (typeof a.mechanism !== 'string')
                throw bad('_meta.usp.authorization.mechanism', 'is required');
            for (const m of ['credential', 'proof'])
                if (a[m] !== undefined && typeof a[m] !== 'string')
                    throw bad(`_meta.usp.authorization.${m}`, 'must be a string');
            out.authorization = a;
            continue;
        }
        if (typeof v !== 'string' || v.length === 0 || v.length > 2048)
            throw bad(`_meta.usp.${k}`, 'must be a non-empty string');
        out[k] = v;
    }
    return out;
}
//# sourceMappingURL=server.js.map