/**
 * What went wrong, as a value a platform can act on: the USP code, its severity, and the next step.
 * Four kinds: a protocol error (the business refused the request: problem+json or JSON-RPC), a
 * business outcome (an error in `messages[]`: understood, and the answer is no), a transport
 * failure (the business could not be reached or did not answer in time) and a verification failure
 * (the client refused what the business sent: a bad signature, a broken profile).
 */
import type { Message } from '../domain/index.js';

export type Severity = NonNullable<Message['severity']>;

/**
 * What the caller does next:
 * - `retry`: send the same request again with the same idempotency key (the client already did, `attempts` times);
 * - `reread`: fetch the resource again (its revision or status moved) and decide again;
 * - `fix_request`: the request itself is wrong; change it before sending it again;
 * - `authenticate`: the business wants other credentials (a proof, a credential, a scope);
 * - `fix_profile`: the business could not use the platform's profile (its URL, document or trust);
 * - `ask_buyer` / `review_with_buyer`: the person must give or confirm something;
 * - `choose_another`: the slot, hold or offer is gone; pick another;
 * - `give_up`: nothing the platform can do changes the answer.
 */
export type NextStep =
  | 'retry'
  | 'reread'
  | 'fix_request'
  | 'authenticate'
  | 'fix_profile'
  | 'ask_buyer'
  | 'review_with_buyer'
  | 'choose_another'
  | 'give_up';

export type ErrorKind = 'protocol' | 'outcome' | 'transport' | 'verification';

export class UspError extends Error {
  override readonly name = 'UspError';
  constructor(
    readonly kind: ErrorKind,
    /** The USP code (a protocol error's finer code when the business gave one, e.g. `proof_nonce_required`). */
    readonly code: string,
    message: string,
    readonly severity: Severity,
    readonly next: NextStep,
    readonly details: {
      /** The HTTP status (REST) or JSON-RPC code (MCP) of a protocol error. */
      status?: number;
      /** Seconds the business asked to wait. */
      retryAfter?: number;
      /** The field errors of an invalid request. */
      errors?: Array<{ field?: string; message?: string }>;
      /** Requests sent before giving up (retries included). */
      attempts?: number;
      /** The whole error body as the business sent it. */
      body?: unknown;
    } = {},
  ) {
    super(message);
  }

  /** Safe to send again unchanged (same idempotency key): the business may not have acted. */
  get retryable(): boolean {
    return this.next === 'retry';
  }
}

const RETRY = ['server_error', 'service_unavailable', 'rate_limited'];
const REREAD = [
  'revision_mismatch',
  'booking_state_conflict',
  'entry_state_conflict',
  'not_found',
  'booking_not_found',
  'entry_not_found',
  'service_not_found',
  'payment_unverifiable',
  'confirmation_failed',
];
const AUTH = [
  'authentication_required',
  'pop_proof_required',
  'proof_nonce_required',
  'signature_invalid',
  'insufficient_scope',
  'invalid_token',
  'signature_missing',
  'key_not_found',
];
const PROFILE = [
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'profile_not_trusted',
  'version_unsupported',
];

/** The next step after a protocol error with this code. */
export function protocolNextStep(code: string): NextStep {
  if (RETRY.includes(code)) return 'retry';
  if (REREAD.includes(code)) return 'reread';
  if (AUTH.includes(code)) return 'authenticate';
  if (PROFILE.includes(code)) return 'fix_profile';
  return 'fix_request';
}

/** The next step after a business outcome, from its severity (and, for a gone slot, its code). */
export function outcomeNextStep(m: Pick<Message, 'code' | 'severity'>): NextStep {
  if (
    [
      'slot_unavailable',
      'hold_expired',
      'hold_not_found',
      'offer_expired',
      'capacity_exceeded',
      'waitlist_full',
    ].includes(m.code)
  )
    return 'choose_another';
  if (m.code === 'price_mismatch' || m.code === 'booking_not_found' || m.code === 'entry_not_found') return 'reread';
  switch (m.severity) {
    case 'requires_buyer_input':
      return 'ask_buyer';
    case 'requires_buyer_review':
      return 'review_with_buyer';
    case 'unrecoverable':
      return 'give_up';
    default:
      return 'reread';
  }
}

/** A protocol error from a REST problem document (RFC 9457) and its status. */
export function fromProblem(status: number, body: any, retryAfter?: number): UspError {
  const code =
    typeof body?.code === 'string'
      ? body.code
      : status === 404
        ? 'not_found'
        : status === 405
          ? 'method_not_allowed'
          : status >= 500
            ? 'server_error'
            : 'invalid_request';
  const next = status === 503 || status === 502 || status === 504 ? 'retry' : protocolNextStep(code);
  const text =
    typeof body?.detail === 'string' ? body.detail : typeof body?.title === 'string' ? body.title : `HTTP ${status}`;
  return new UspError('protocol', code, text, next === 'retry' ? 'recoverable' : 'unrecoverable', next, {
    status,
    retryAfter,
    body,
    ...(Array.isArray(body?.errors) ? { errors: body.errors } : {}),
  });
}

/** A protocol error from a JSON-RPC error object (`data.code` is the USP code). */
export function fromRpcError(e: { code: number; message: string; data?: any }): UspError {
  const code =
    typeof e.data?.code === 'string'
      ? e.data.code
      : typeof e.data?.reason === 'string'
        ? e.data.reason
        : 'server_error';
  const next = protocolNextStep(code);
  const retryAfter = typeof e.data?.retry_after === 'number' ? e.data.retry_after : undefined;
  return new UspError(
    'protocol',
    code,
    typeof e.data?.content === 'string' ? e.data.content : e.message,
    next === 'retry' ? 'recoverable' : 'unrecoverable',
    next,
    {
      status: e.code,
      retryAfter,
      body: e,
      ...(Array.isArray(e.data?.errors) ? { errors: e.data.errors } : {}),
    },
  );
}

/** The first error in `messages[]`, as a value (null when the operation did what was asked). */
export function fromMessages(messages: readonly Message[]): UspError | null {
  const m = messages.find((x) => x.type === 'error');
  if (!m) return null;
  const severity: Severity = m.severity ?? 'recoverable';
  return new UspError('outcome', m.code, m.content, severity, outcomeNextStep({ code: m.code, severity }));
}

export function transportError(message: string, attempts: number): UspError {
  return new UspError('transport', 'business_unreachable', message, 'recoverable', 'retry', { attempts });
}

export function verificationError(code: string, message: string): UspError {
  return new UspError('verification', code, message, 'unrecoverable', 'give_up');
}
