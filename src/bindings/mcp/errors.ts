/**
 * Protocol errors on the MCP door (spec 9.4, and the project's codes for what it leaves open): one exhaustive
 * table from our error codes to JSON-RPC codes. The error's `message` starts with the USP code and
 * goes on with what to change (MCP hosts show the model only the message), `data.code` is the finer
 * reason and `data.content` the explanation alone.
 */
import type { ProtocolError, ProtocolErrorCode } from '../../operations/index.js';
import { protocolNextStep } from './next-steps.js';

export const MCP_ERROR_CODES = {
  invalid_request: -32600,
  invalid_profile_url: -32602,
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
  server_error: -32603,
  idempotency_conflict: -32600,
  booking_state_conflict: -32600,
  range_too_wide: -32600,
  signature_invalid: -32006,
  digest_mismatch: -32600,
  payload_too_large: -32600,
  not_found: -32602,
  method_not_allowed: -32601,
  unsupported_media_type: -32600,
  unknown_tool: -32602,
  limit_exceeded: -32600,
  algorithm_unsupported: -32600,
  payment_unverifiable: -32002,
  confirmation_failed: -32002,
} as const satisfies Record<ProtocolErrorCode, number>;

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

export interface JsonRpcErrorShape {
  code: number;
  message: string;
  data: Record<string, unknown>;
}

export function toJsonRpcError(err: ProtocolError, correlationId?: string): JsonRpcErrorShape {
  // An unknown tool is the one JSON-RPC error without `data.code` (spec-next 9.2.1); `reason` says what it is.
  const data: Record<string, unknown> = err.code === 'unknown_tool' ? { content: err.message, reason: 'unknown_tool' } : { code: err.detailCode ?? err.code, content: err.message };
  if (err.errors && err.errors.length > 0) data.errors = err.errors;
  if (err.retryAfter !== undefined) data.retry_after = err.retryAfter;
  if (err.extra) for (const [k, v] of Object.entries(err.extra)) if (!(k in data)) data[k] = v;
  if (correlationId) data.correlation_id = correlationId;
  const next = protocolNextStep(err.code, err.detailCode);
  return { code: MCP_ERROR_CODES[err.code], message: `${errorSentence(WIRE_NAME[err.code] ?? err.code, err.message)}${next ? ` ${next}` : ''}`, data };
}

/** "invalid_request: start_date: must be a date (YYYY-MM-DD)": the code first, then the explanation as a sentence. */
export function errorSentence(code: string, explanation: string): string {
  const text = explanation.trim();
  if (!text) return code;
  return `${code}: ${/[.!?)]$/.test(text) ? text : `${text}.`}`;
}
