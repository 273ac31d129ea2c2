/**
 * The v2 SDK's wire codec rewrites JSON-RPC error -32002 to -32602 on the way out (a newer MCP
 * rule for "resource not found"). USP's revision_mismatch is -32002: restore it on every error
 * whose `data.code` says so, just before the bytes leave.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

export function restoreUspCodes<T>(message: T): T {
  const m = message as { error?: { code?: number; message?: string; data?: { code?: unknown } } };
  if (m && m.error && m.error.message?.startsWith('revision_mismatch') && m.error.code !== -32002) m.error.code = -32002;
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
  if (!text.includes('revision_mismatch')) return new Response(text, { status: res.status, headers: res.headers });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  const fixed = Array.isArray(body) ? body.map(restoreUspCodes) : restoreUspCodes(body);
  return new Response(JSON.stringify(fixed), { status: res.status, headers: res.headers });
}
