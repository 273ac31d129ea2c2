/**
 * Protocol errors: the request could not be processed. Each door maps a code to its wire form
 * (RFC 9457 problem + HTTP status, or a JSON-RPC error) through one exhaustive table.
 * Business outcomes are never ProtocolErrors: they are messages in a successful result.
 */
import type { Message } from '../../domain/index.js';

export const PROTOCOL_ERROR_CODES = [
  'invalid_request',
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'profile_not_trusted',
  'authentication_required',
  // An OAuth access token without the scope the operation needs (RFC 6750 section 3.1).
  'insufficient_scope',
  'rate_limited',
  'version_unsupported',
  'service_unavailable',
  'pop_proof_required',
  'revision_mismatch',
  'server_error',
  // Codes the spec gives a REST status but no JSON-RPC number: idempotency_conflict, booking_state_conflict, range_too_wide and the RFC 9421 failures.
  'idempotency_conflict',
  'booking_state_conflict',
  'range_too_wide',
  'signature_invalid',
  'digest_mismatch',
  'payload_too_large',
  'not_found',
  'method_not_allowed',
  'unsupported_media_type',
  'unknown_tool',
  'limit_exceeded',
  'algorithm_unsupported',
  // Confirm-payment conflicts of the newer text (5.3.7, 9.4.3): 409, JSON-RPC -32002.
  'payment_unverifiable',
  'confirmation_failed',
] as const;

export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

export interface FieldError {
  field: string;
  message: string;
}

export class ProtocolError extends Error {
  readonly code: ProtocolErrorCode;
  /** Finer reason carried as `data.code` on MCP and as the problem's `code` member on REST. */
  readonly detailCode?: string;
  readonly errors?: FieldError[];
  /** Extra members for the wire (e.g. `nonce`, `mechanism`, `current_status`). */
  readonly extra?: Record<string, unknown>;
  /** Seconds, for rate_limited and service_unavailable. */
  readonly retryAfter?: number;

  constructor(
    code: ProtocolErrorCode,
    message: string,
    opts: { detailCode?: string; errors?: FieldError[]; extra?: Record<string, unknown>; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.detailCode = opts.detailCode;
    this.errors = opts.errors;
    this.extra = opts.extra;
    this.retryAfter = opts.retryAfter;
  }
}

export function invalidRequest(message: string, errors?: FieldError[], detailCode?: string): ProtocolError {
  return new ProtocolError('invalid_request', message, { errors, detailCode });
}

/**
 * An id in the request path that names nothing this caller may see (spec-next 9.4.1, 9.4.3): a
 * protocol error, REST 404 with the type of `outcome.code` (`booking-not-found`, `entry-not-found`,
 * `service-not-found`), MCP `-32602` with that `data.code`. Thrown so that nothing the operation
 * began is kept; the pipeline answers it. A platform that negotiated a version older than ours gets
 * the pinned text's business outcome instead: HTTP 200 with `outcome` in `messages[]` (DECISIONS D3).
 */
export class MissingResource extends Error {
  constructor(readonly outcome: Message) {
    super(outcome.content);
    this.name = 'MissingResource';
  }

  /** The newer text's answer: the 404 protocol error named by the outcome's code. */
  asError(): ProtocolError {
    return new ProtocolError('not_found', this.outcome.content, { detailCode: this.outcome.code });
  }
}
