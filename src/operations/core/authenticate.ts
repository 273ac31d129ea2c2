/**
 * The pipeline's view of authentication: hand what the door carried to the security module and
 * turn its one failure type into the protocol error the spec names for it.
 */
import {
  AuthFailure,
  authenticateRequest,
  popAlgorithms,
  type AuthPolicy,
  type HttpEvidence,
  type McpAuthorization,
  type RateQuota,
} from '../../security/index.js';
import type { SecurityRepo, Store } from '../../store/index.js';
import { ProtocolError, type ProtocolErrorCode } from './errors.js';
import { rateRuleOf, scopesOf, type OperationDef } from './define.js';
import type { Caller } from './context.js';
import type { Logger } from './logger.js';

/** What rode with the call besides its input, as the door saw it. */
export interface Presented {
  binding: 'mcp' | 'rest';
  mcp?: { tool: string; rawArguments: Record<string, unknown>; authorization?: McpAuthorization };
  http?: HttpEvidence;
}

/** Each security store call runs in its own short transaction: network waits never hold the store. */
function autoTransactional(store: Store): SecurityRepo {
  return {
    putCredential: (c) => store.transaction((tx) => tx.security.putCredential(c)),
    credential: (h) => store.read((tx) => tx.security.credential(h)),
    revokeCredentials: (id) => store.transaction((tx) => tx.security.revokeCredentials(id)),
    claimJti: (j, n, k) => store.transaction((tx) => tx.security.claimJti(j, n, k)),
    boundProfile: (p) => store.read((tx) => tx.security.boundProfile(p)),
    bindProfile: (p, u, n) => store.transaction((tx) => tx.security.bindProfile(p, u, n)),
    purge: (n) => store.transaction((tx) => tx.security.purge(n)),
    purgeCredentials: (before, limit) => store.transaction((tx) => tx.security.purgeCredentials(before, limit)),
  };
}

export async function authenticateCall(
  op: OperationDef,
  input: Record<string, unknown>,
  req: { profile?: string | null; presented?: Presented; correlationId?: string },
  deps: { store: Store; authPolicy: AuthPolicy; log: Logger },
  now: number,
  /** The call's own record: the rate limit notes what its subjects have left here, passed or refused. */
  seen: { rate?: RateQuota } = {},
): Promise<Caller> {
  const resource = op.resource ? { kind: op.resource.kind, id: String(input[op.resource.key] ?? '') } : undefined;
  const presented = req.presented ?? { binding: 'rest' as const };
  try {
    const c = await authenticateRequest(
      {
        access: op.access,
        binding: presented.binding,
        resource,
        scopes: scopesOf(op),
        profile: req.profile ?? null,
        mcp: presented.mcp,
        http: presented.http,
      },
      deps.authPolicy,
      async () => autoTransactional(deps.store),
      now,
    );
    const caller: Caller = {
      principal: c.principal,
      profile: c.profile,
      business: c.business,
      jkt: c.jkt,
      credential: c.credential,
      authenticated: c.authenticated,
      platform: c.platform,
    };
    if (c.business) caller.actor = 'admin_api_key';
    if (c.account) caller.account = { id: c.account, scopes: c.scopes ?? [] };
    limitRate(
      op,
      input,
      { ...caller, profileProven: c.profileProven === true },
      presented,
      deps.authPolicy,
      deps.log,
      seen,
    );
    return caller;
  } catch (err) {
    if (!(err instanceof AuthFailure)) throw err;
    deps.log.warn('authentication refused', {
      operation: op.name,
      correlation_id: req.correlationId,
      code: err.detailCode,
      detail: err.logDetail,
    });
    const code: ProtocolErrorCode = err.code;
    const errors = err.extra.errors as Array<{ field: string; message: string }> | undefined;
    const { errors: _e, retry_after, ...extra } = err.extra;
    throw new ProtocolError(code, err.publicMessage, {
      // A missing field is a plain invalid_request (its errors[] name the field).
      detailCode: code === 'invalid_request' ? undefined : err.detailCode,
      errors,
      // What is accepted rides with every refusal; the REST door names the same algorithms in its challenge.
      extra: {
        ...extra,
        accepted_mechanisms: deps.authPolicy.accepted,
        ...popAlgorithmsOf(deps.authPolicy),
        // Where an OAuth client starts (RFC 9728); the REST door names it in its Bearer challenge.
        ...(deps.authPolicy.resourceMetadata
          ? { resource_metadata: deps.authPolicy.resourceMetadata(presented.binding) }
          : {}),
      },
      retryAfter: typeof retry_after === 'number' ? retry_after : undefined,
    });
  }
}

/** `pop_algorithms`, when a proof mechanism is accepted: exactly what the proof check accepts. */
function popAlgorithmsOf(policy: AuthPolicy): { pop_algorithms?: readonly string[] } {
  const proofs = policy.accepted.includes('platform_key_pop') || policy.accepted.includes('booking_scoped_credential');
  return proofs ? { pop_algorithms: popAlgorithms(policy.allowEs256) } : {};
}

/**
 * Rate limits (spec 10.2.2), public calls included: the call's cost is taken at once from the
 * buckets of its client address, its authenticated key and, when the caller proved it is that
 * profile (a signature with a key the profile publishes, a token registered for it), its profile
 * URI, so a fresh key (or address) per request escapes nothing. A profile merely named is not
 * counted: anyone could name a platform's profile to drain its bucket. The business's own calls are
 * not limited.
 */
function limitRate(
  op: OperationDef,
  input: Record<string, unknown>,
  caller: Caller & { profileProven: boolean },
  presented: Presented,
  policy: AuthPolicy,
  log: Logger,
  seen: { rate?: RateQuota },
): void {
  const limiter = policy.rateLimiter;
  const rule = rateRuleOf(op);
  if (!limiter || !rule || caller.business) return;
  const subjects: Array<string | { bucket: string; subject: string }> = [...(rule.shared?.(input) ?? [])];
  const address = presented.http?.clientAddress;
  if (address) subjects.push(`addr:${address}`);
  if (caller.profile && caller.profileProven) subjects.push(`profile:${caller.profile}`);
  if (caller.authenticated && caller.principal) subjects.push(`key:${caller.principal}`);
  const cost = rule.cost ? rule.cost(input) : 1;
  const now = (policy.rateClock ?? (() => performance.now()))();
  const wait = limiter.take(subjects, rule.bucket, cost, now);
  const quota = limiter.quota(subjects, rule.bucket, now);
  if (quota) seen.rate = wait === 0 ? quota : { ...quota, remaining: 0, reset: Math.max(quota.reset, wait) };
  if (wait === 0) return;
  log.warn('rate limited', {
    operation: op.name,
    bucket: rule.bucket,
    cost,
    subjects: subjects.map((s) => (typeof s === 'string' ? s : `${s.bucket}:${s.subject}`).slice(0, 120)),
  });
  throw new ProtocolError('rate_limited', `Too many requests; retry in ${wait} s.`, {
    retryAfter: wait,
    extra: { bucket: rule.bucket },
  });
}
