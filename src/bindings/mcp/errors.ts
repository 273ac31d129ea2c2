/**
 * Protocol errors on the MCP door (spec 9.4, and the project's codes for what it leaves open): one exhaustive
 * table from our error codes to JSON-RPC codes. The error's `message` starts with the USP code and
 * goes on with what to change (MCP hosts show the model only the message), `data.code` is the finer
 * reason and `data.content` the explanation alone.
 */
import type { Business, ProtocolError, ProtocolErrorCode } from '../../operations/index.js';
import { protocolNextStep } from './next-steps.js';

/**
 * The JSON-RPC 2.0 codes (and the Streamable HTTP transport's session code), by the `data.code`
 * name an error of that number carries when it has none of its own (spec-next 9.4.3). Every number
 * the door puts on the wire is read from this table or from `MCP_ERROR_CODES` below.
 */
export const JSON_RPC = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  server_error: -32603,
} as const;

/** An unknown or expired session id (the transports' convention; it has a `data.code` of its own). */
export const SESSION_NOT_FOUND = -32001;

/** The name of a JSON-RPC code for an error that carries no `data.code` (the SDK's own errors). */
export const JSON_RPC_NAME: ReadonlyMap<number, string> = new Map(
  Object.entries(JSON_RPC).map(([name, code]) => [code, name]),
);

export const MCP_ERROR_CODES = {
  invalid_request: JSON_RPC.invalid_request,
  invalid_profile_url: JSON_RPC.invalid_params,
  profile_unreachable: -32003,
  profile_malformed: -32004,
  profile_not_trusted: -32005,
  authentication_required: -32006,
  insufficient_scope: -32006,
  rate_limited: -32007,
  version_unsupported: -32008,
  service_unavailable: -32009,
  pop_proof_required: -32001,
  revision_mismatch: -32002,
  server_error: JSON_RPC.server_error,
  idempotency_conflict: JSON_RPC.invalid_request,
  booking_state_conflict: JSON_RPC.invalid_request,
  range_too_wide: JSON_RPC.invalid_request,
  signature_invalid: -32006,
  digest_mismatch: JSON_RPC.invalid_request,
  payload_too_large: JSON_RPC.invalid_request,
  not_found: JSON_RPC.invalid_params,
  method_not_allowed: JSON_RPC.method_not_found,
  unsupported_media_type: JSON_RPC.invalid_request,
  unknown_tool: JSON_RPC.invalid_params,
  limit_exceeded: JSON_RPC.invalid_request,
  algorithm_unsupported: JSON_RPC.invalid_request,
  payment_unverifiable: -32002,
  confirmation_failed: -32002,
} as const satisfies Record<ProtocolErrorCode, number>;

/** The USP errors whose JSON-RPC code is revision_mismatch's (-32002), read off the table: the codec's rewrite of it is undone. */
export const AT_REVISION_CODE: ReadonlySet<string> = new Set(
  Object.entries(MCP_ERROR_CODES)
    .filter(([, code]) => code === MCP_ERROR_CODES.revision_mismatch)
    .map(([name]) => name),
);

/** The USP code named in `message` when ours has no JSON-RPC number of its own. */
const WIRE_NAME: Partial<Record<ProtocolErrorCode, string>> = {
  idempotency_conflict: 'invalid_request',
  booking_state_conflict: 'invalid_request',
  range_too_wide: 'invalid_request',
  digest_mismatch: 'invalid_request',
  payload_too_large: 'invalid_request',
  unsupported_media_type: 'invalid_request',
  limit_exceeded: 'invalid_request',
  algorithm_unsupported: 'invalid_request',
  signature_invalid: 'authentication_required',
  insufficient_scope: 'authentication_required',
};

/** The code `message` starts with: a not-found names what is missing (`booking_not_found`, spec-next 9.4.3), as its `data.code` does. */
const wireName = (err: ProtocolError): string =>
  err.code === 'not_found' && err.detailCode ? err.detailCode : (WIRE_NAME[err.code] ?? err.code);

export interface JsonRpcErrorShape {
  code: number;
  message: string;
  data: Record<string, unknown>;
}

/** `biz`, when known, lets the next step name the business's contact. */
export function toJsonRpcError(err: ProtocolError, correlationId?: string, biz?: Business): JsonRpcErrorShape {
  // An unknown tool is the one JSON-RPC error without `data.code` (spec-next 9.2.1); `reason` says what it is.
  const data: Record<string, unknown> =
    err.code === 'unknown_tool'
      ? { content: err.message, reason: 'unknown_tool' }
      : { code: err.detailCode ?? err.code, content: err.message };
  if (err.errors && err.errors.length > 0) data.errors = err.errors;
  if (err.retryAfter !== undefined) data.retry_after = err.retryAfter;
  if (err.extra) for (const [k, v] of Object.entries(err.extra)) if (!(k in data)) data[k] = v;
  if (correlationId) data.correlation_id = correlationId;
  const next = protocolNextStep(err.code, err.detailCode, biz);
  return {
    code: MCP_ERROR_CODES[err.code],
    message: `${errorSentence(wireName(err), err.message)}${next ? ` ${next}` : ''}`,
    data,
  };
}

/** "invalid_request: start_date: must be a date (YYYY-MM-DD)": the code first, then the explanation as a sentence. */
export function errorSentence(code: string, explanation: string): string {
  const text = explanation.trim();
  if (!text) return code;
  return `${code}: ${/[.!?)]$/.test(text) ? text : `${text}.`}`;
}
