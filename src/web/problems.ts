/**
 * Protocol errors as RFC 9457 problem details with the spec's status codes (spec 9.1, 9.4): how the
 * REST door says no, and the status every other door gives a refusal (the buyer pages' HTML, the
 * registry feed door's problem+json). One exhaustive table: a new error code does not compile until
 * it is mapped. Shared here so that no door imports another.
 */
import type { ProtocolError, ProtocolErrorCode } from '../operations/index.js';

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
export const TYPED_BY_DETAIL: readonly ProtocolErrorCode[] = [
  'not_found',
  'rate_limited',
  'signature_invalid',
  'pop_proof_required',
  'booking_state_conflict',
];

/**
 * Plain HTTP conditions USP mints no type or code for (spec-next 9.1, 9.4.3): the RFC 9457
 * `about:blank` type, the status phrase as title, no `code` member. A 405 carries `Allow`.
 */
const PLAIN_HTTP: readonly ProtocolErrorCode[] = ['method_not_allowed'];

/** A plain HTTP condition: a 405, or a 404 for a path no route serves (a not-found naming what is missing keeps its type). */
const isPlainHttp = (err: ProtocolError) =>
  PLAIN_HTTP.includes(err.code) || (err.code === 'not_found' && err.detailCode === undefined);

/** The problem type names the finer reason when there is one (e.g. hold-limit-exceeded). */
export function problemType(err: ProtocolError): string {
  if (isPlainHttp(err)) return 'about:blank';
  const specific = TYPED_BY_DETAIL.includes(err.code) ? (err.detailCode ?? err.code) : err.code;
  return PROBLEM_BASE + kebab(specific);
}

export function problemBody(err: ProtocolError, instance?: string): Record<string, unknown> {
  const row = REST_ERRORS[err.code];
  const body: Record<string, unknown> = {
    type: problemType(err),
    title: row.title,
    status: row.status,
    detail: err.message,
  };
  if (instance) body.instance = instance;
  if (err.errors && err.errors.length > 0) body.errors = err.errors;
  if (!isPlainHttp(err)) body.code = err.detailCode ?? err.code;
  if (err.extra) for (const [k, v] of Object.entries(err.extra)) if (!(k in body)) body[k] = v;
  return body;
}

/** RFC 9110 challenges naming every mechanism the business would accept (spec 10.1.6). */
function wwwAuthenticate(accepted: readonly string[], algs: readonly string[], err: ProtocolError): string {
  const challenges: string[] = [];
  const detail =
    err.detailCode && err.code === 'pop_proof_required'
      ? `, error="${err.detailCode === 'proof_nonce_required' ? 'use_dpop_nonce' : 'invalid_dpop_proof'}"`
      : '';
  if (accepted.includes('platform_key_pop') || accepted.includes('booking_scoped_credential'))
    challenges.push(`DPoP realm="usp", algs="${algs.join(' ')}"${detail}`);
  if (accepted.includes('http_message_signature')) challenges.push('Signature realm="usp"');
  const metadata = typeof err.extra?.resource_metadata === 'string' ? err.extra.resource_metadata : undefined;
  // One Bearer challenge covers API keys and OAuth tokens; with OAuth it names where to start (RFC 9728).
  if (accepted.includes('oauth2_bearer'))
    challenges.push(
      `Bearer realm="usp"${metadata ? `, resource_metadata="${metadata}"` : ''}${err.detailCode === 'invalid_token' ? ', error="invalid_token"' : ''}`,
    );
  else if (accepted.includes('api_key')) challenges.push('Bearer realm="usp"');
  return challenges.join(', ') || 'Bearer realm="usp"';
}

/** RFC 6750 section 3.1: the scope to ask for, and where the client finds the authorization server. */
function insufficientScopeChallenge(err: ProtocolError): string {
  const metadata =
    typeof err.extra?.resource_metadata === 'string' ? `, resource_metadata="${err.extra.resource_metadata}"` : '';
  return `Bearer realm="usp", error="insufficient_scope", scope="${String(err.extra?.scope ?? '')}"${metadata}`;
}

/** An RFC 9457 problem document for `err` at `path`: how the REST door, the registry feed door and the host on their behalf say no. */
export function problemResponse(path: string, err: ProtocolError): Response {
  const status = REST_ERRORS[err.code].status;
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' };
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
  if (status === 401) {
    const accepted = (err.extra?.accepted_mechanisms as string[] | undefined) ?? ['api_key'];
    const algs = (err.extra?.pop_algorithms as string[] | undefined) ?? ['EdDSA'];
    headers['WWW-Authenticate'] = wwwAuthenticate(accepted, algs, err);
  }
  if (err.code === 'insufficient_scope') headers['WWW-Authenticate'] = insufficientScopeChallenge(err);
  if (err.detailCode === 'proof_nonce_required' && typeof err.extra?.nonce === 'string')
    headers['DPoP-Nonce'] = err.extra.nonce;
  return new Response(JSON.stringify(problemBody(err, path)), { status, headers });
}
