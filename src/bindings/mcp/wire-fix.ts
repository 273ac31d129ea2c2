/**
 * What the door repairs in the SDK's answers, just before the bytes leave, with every number read
 * from the tables of ./errors.ts. The v2 SDK's wire codec rewrites error -32002 to -32602 on the way
 * out (a newer MCP rule for "resource not found"); USP's errors on revision_mismatch's code
 * (`AT_REVISION_CODE`) get it back. And every error object carries `data.code` (spec-next 9.4.3):
 * the SDK's own errors (an unknown method, bad params, a parse error) get the name of their
 * JSON-RPC code. The one exception is an unknown tool, which carries none (spec-next 9.2.1).
 *
 * Streams (stdio, SSE, a session's GET) are repaired message by message (`guardSend`); an HTTP
 * answer to a POST is rewritten once (`finishPost`), codes, token status and rate fields together,
 * unless the session's guardSend saw no error go into it (then only the rate fields are added).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { rateLimitFields } from '../../security/index.js';
import { AT_REVISION_CODE, JSON_RPC_NAME, MCP_ERROR_CODES } from './errors.js';
import { tokenRefusalOf } from './http-status.js';
import type { RateNote } from './rate-note.js';

/** An error object with `data.code` set (its own, or the name of its JSON-RPC code). */
export function withDataCode<E extends { code?: unknown; data?: unknown }>(
  error: E,
): E & { data: Record<string, unknown> } {
  const data =
    error.data && typeof error.data === 'object' && !Array.isArray(error.data)
      ? (error.data as Record<string, unknown>)
      : {};
  // An unknown tool is the one error without it (spec-next 9.2.1).
  if (typeof data.code !== 'string' && data.reason !== 'unknown_tool')
    data.code = (typeof error.code === 'number' && JSON_RPC_NAME.get(error.code)) || 'server_error';
  return Object.assign(error, { data });
}

export function restoreUspCodes<T>(message: T): T {
  const m = message as { error?: { code?: number; message?: string; data?: unknown } };
  if (!m || typeof m !== 'object' || !m.error || typeof m.error !== 'object') return message;
  const data = m.error.data as { code?: unknown } | undefined;
  const atRevisionCode = m.error.message?.startsWith('revision_mismatch') || AT_REVISION_CODE.has(String(data?.code));
  if (atRevisionCode) m.error.code = MCP_ERROR_CODES.revision_mismatch;
  withDataCode(m.error);
  return message;
}

/** Told the id of every error response a guarded transport sends (a Streamable HTTP session: see `finishPost`). */
export interface ErrorWatch {
  answeredWithError(id: unknown): void;
}

/** Wrap a transport's send so that every outgoing error keeps its USP code (and `watch` hears of it). */
export function guardSend<T extends { send(message: JSONRPCMessage, options?: unknown): Promise<void> }>(
  transport: T,
  watch?: ErrorWatch,
): T {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: unknown) => {
    const m = message as { id?: unknown; error?: unknown };
    if (watch && m.error !== undefined && m.id !== undefined) watch.answeredWithError(m.id);
    return send(restoreUspCodes(message), options as never);
  };
  return transport;
}

/**
 * The one rewrite of the HTTP answer to a POST: a JSON body is read once and parsed only when it
 * carries an error, each error's code repaired (`restoreUspCodes`); a token refusal in it sets the
 * status and challenge (./http-status.ts); the RateLimit fields and Retry-After the call's answer
 * noted (./rate-note.ts) go on the headers. Any other answer (an SSE stream) keeps its body.
 */
export async function finishPost(res: Response, note: RateNote | undefined, noError = false): Promise<Response> {
  // An answer known to carry no error (`noError`: every message in it went out through a watched
  // guardSend, none an error) has nothing to repair: its own headers take the rate fields. Reading
  // and rewriting its body made the listener's Response whole and decoded it back (docs/DECISIONS.md,
  // "The MCP door's answer leaves the host as the door made it").
  if (noError && res.status === 200) {
    if (note?.quota) {
      for (const [name, value] of Object.entries(rateLimitFields(note.quota))) res.headers.set(name, value);
      if (note.retryAfter !== undefined) res.headers.set('Retry-After', String(note.retryAfter));
    }
    return res;
  }
  const headers = new Headers(res.headers);
  if (note?.quota) {
    for (const [name, value] of Object.entries(rateLimitFields(note.quota))) headers.set(name, value);
    if (note.retryAfter !== undefined) headers.set('Retry-After', String(note.retryAfter));
  }
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) {
    return note?.quota ? new Response(res.body, { status: res.status, statusText: res.statusText, headers }) : res;
  }
  let text = await res.text();
  let status = res.status;
  if (text.includes('"error"')) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, { status, headers });
    }
    const fixed = Array.isArray(body) ? body.map(restoreUspCodes) : restoreUspCodes(body);
    text = JSON.stringify(fixed);
    const refusal = tokenRefusalOf(fixed);
    if (refusal) {
      status = refusal.status;
      headers.set('WWW-Authenticate', refusal.challenge);
    }
  }
  return new Response(text, { status, headers });
}
