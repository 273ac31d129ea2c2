/**
 * Protocol errors on the REST door: RFC 9457 problem details with the spec's status codes
 * (spec 9.1, 9.4). One exhaustive table: a new error code does not compile until it is mapped.
 */
import type { ProtocolError, ProtocolErrorCode } from '../../operations/index.js';

export const PROBLEM_BASE = 'https://usp-protocol.dev/errors/';

export const REST_ERRORS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_profile_url: { status: 400, title: 'Invalid profile URL' },
  profile_unreachable: { status: 424, title: 'Platform profile unreachable' },
  profile_malformed: { status: 422, title: 'Platform profile malformed' },
  profile_not_trusted: { status: 403, title: 'Platform profile not trusted' },
  authentication_required: { status: 401, title: 'Authentication required' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  rate_limited: { status: 429, title: 'Too many requests' },
  version_unsupported: { status: 400, title: 'Version unsupported' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  pop_proof_required: { status: 401, title: 'Proof of possession required' },
  revision_mismatch: { status: 412, title: 'Revision mismatch' },
  server_error: { status: 500, title: 'Server error' },
  idempotency_conflict: { status: 409, title: 'Idempotency key reused with different parameters' },
  booking_state_conflict: { status: 409, title: 'Not allowed in the current state' },
  range_too_wide: { status: 422, title: 'Range too wide' },
  signature_invalid: { status: 401, title: 'Signature invalid' },
  digest_mismatch: { status: 400, title: 'Content digest mismatch' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  unknown_tool: { status: 404, title: 'Unknown tool' },
  limit_exceeded: { status: 422, title: 'Limit exceeded' },
  algorithm_unsupported: { status: 400, title: 'Algorithm unsupported' },
  payment_unverifiable: { status: 409, title: 'Payment unverifiable' },
  confirmation_failed: { status: 409, title: 'Confirmation failed' },
} as const satisfies Record<ProtocolErrorCode, { status: number; title: string }>;

const kebab = (s: string) => s.replace(/_/g, '-');

/** Codes whose problem type names the finer reason when there is one (e.g. hold-limit-exceeded, entry-state-conflict). */
export const TYPED_BY_DETAIL: readonly ProtocolErrorCode[] = ['not_found', 'rate_limited', 'signature_invalid', 'pop_proof_required', 'booking_state_conflict'];

/**
 * Plain HTTP conditions USP mints no type or code for (spec-next 9.1, 9.4.3): the RFC 9457
 * `about:blank` type, the status phrase as title, no `code` member. A 405 carries `Allow`.
 */
const PLAIN_HTTP: readonly ProtocolErrorCode[] = ['method_not_allowed'];

/** A plain HTTP condition: a 405, or a 404 for a path no route serves (a not-found naming what is missing keeps its type). */
const isPlainHttp = (err: ProtocolError) => PLAIN_HTTP.includes(err.code) || (err.code === 'not_found' && err.detailCode === undefined);

/** The problem type names the finer reason when there is one (e.g. hold-limit-exceeded). */
export function problemType(err: ProtocolError): string {
  if (isPlainHttp(err)) return 'about:blank';
  const specific = TYPED_BY_DETAIL.includes(err.code) ? (err.detailCode ?? err.code) : err.code;
  return PROBLEM_BASE + kebab(specific);
}

export function problemBody(err: ProtocolError, instance?: string): Record<string, unknown> {
  const row = REST_ERRORS[err.code];
  const body: Record<string, unknown> = { type: problemType(err), title: row.title, status: row.status, detail: err.message };
  if (instance) body.instance = instance;
  if (err.errors && err.errors.length > 0) body.errors = err.errors;
  if (!isPlainHttp(err)) body.code = err.detailCode ?? err.code;
  if (err.extra) for (const [k, v] of Object.entries(err.extra)) if (!(k in body)) body[k] = v;
  return body;
}
