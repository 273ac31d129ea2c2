/**
 * Two repairs on every JSON-RPC error just before the bytes leave. The v2 SDK's wire codec rewrites
 * error -32002 to -32602 on the way out (a newer MCP rule for "resource not found"); USP's
 * revision_mismatch, payment_unverifiable and confirmation_failed are -32002: restore it. And every error object carries `data.code` (spec-next
 * 9.4.3): the SDK's own errors (an unknown method, bad params, a parse error) get the name of
 * their JSON-RPC code. The one exception is an unknown tool, which carries none (spec-next 9.2.1).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** The `data.code` of an error that has none: the name of its JSON-RPC code. */
const JSON_RPC_NAMES: Record<number, string> = {
  [-32700]: 'parse_error',
  [-32600]: 'invalid_request',
  [-32601]: 'method_not_found',
  [-32602]: 'invalid_params',
  [-32603]: 'server_error',
};

/** An error object with `data.code` set (its own, or the name of its JSON-RPC code). */
export function withDataCode<E extends { code?: unknown; data?: unknown }>(error: E): E & { data: Record<string, unknown> } {
  const data = error.data && typeof error.data === 'object' && !Array.isArray(error.data) ? (error.data as Record<string, unknown>) : {};
  // An unknown tool is the one error without it (spec-next 9.2.1).
  if (typeof data.code !== 'string' && data.reason !== 'unknown_tool') data.code = (typeof error.code === 'number' && JSON_RPC_NAMES[error.code]) || 'server_error';
  return Object.assign(error, { data });
}

/** The USP errors on -32002: revision_mismatch and the newer text's confirm-payment conflicts. */
const AT_32002 = new Set(['revision_mismatch', 'payment_unverifiable', 'confirmation_failed']);

export function restoreUspCodes<T>(message: T): T {
  const m = message as { error?: { code?: number; message?: string; data?: unknown } };
  if (!m || typeof m !== 'object' || !m.error || typeof m.error !== 'object') return message;
  const data = m.error.data as { code?: unknown } | undefined;
  const usp32002 = m.error.message?.startsWith('revision_mismatch') || AT_32002.has(String(data?.code));
  if (usp32002 && m.error.code !== -32002) m.error.code = -32002;
  withDataCode(m.error);
  return message;
}

/** Wrap a transport's send so that every outgoing error keeps its USP code. */
export function guardSend<T extends { send(message: JSONRPCMessage, options?: unknown): Promise<void> }>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: unknown) => send(restoreUspCodes(message), options as never);
  return transport;
}

/** Same repair for a whole JSON response body (the per-request 2026-era handler). */
export async function restoreInResponse(res: Response): Promise<Response> {
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) return res;
  const text = await res.text();
  if (!text.includes('"error"')) return new Response(text, { status: res.status, headers: res.headers });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  const fixed = Array.isArray(body) ? body.map(restoreUspCodes) : restoreUspCodes(body);
  return new Response(JSON.stringify(fixed), { status: res.status, headers: res.headers });
}
