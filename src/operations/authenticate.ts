/**
 * The pipeline's view of authentication: hand what the door carried to the security module and
 * turn its one failure type into the protocol error the spec names for it.
 */
import { AuthFailure, authenticateRequest, type AuthPolicy, type HttpEvidence, type McpAuthorization } from '../security/index.js';
import type { SecurityRepo, Store } from '../store/index.js';
import { ProtocolError, type ProtocolErrorCode } from './errors.js';
import type { OperationDef } from './define.js';
import type { Caller } from './runtime.js';
import type { Logger } from './logger.js';

/** What rode with the call besides its input, as the door saw it. */
export interface Presented {
  binding: 'mcp' | 'rest';
  mcp?: { tool: string; rawArguments: Record<string, unknown>; authorization?: McpAuthorization };
  http?: HttpEvidence;
}

const RATE_BUCKET: Record<string, string> = {
  hold_slot: 'holds',
  create_booking: 'bookings',
  cancel_booking: 'bookings',
  reschedule_booking: 'bookings',
  update_booking: 'bookings',
  confirm_payment: 'bookings',
  join_waitlist: 'bookings',
  accept_waitlist_offer: 'bookings',
};

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
  };
}

export async function authenticateCall(
  op: OperationDef,
  input: Record<string, unknown>,
  req: { profile?: string | null; presented?: Presented },
  deps: { store: Store; authPolicy: AuthPolicy; log: Logger },
  now: number,
): Promise<Caller> {
  const resource = op.resource ? { kind: op.resource.kind, id: String(input[op.resource.key] ?? '') } : undefined;
  const presented = req.presented ?? { binding: 'rest' as const };
  try {
    const c = await authenticateRequest(
      {
        access: op.access,
        binding: presented.binding,
        resource,
        profile: req.profile ?? null,
        mcp: presented.mcp,
        http: presented.http,
        rateBucket: RATE_BUCKET[op.name],
      },
      deps.authPolicy,
      async () => autoTransactional(deps.store),
      now,
    );
    return { principal: c.principal, profile: c.profile, business: c.business, jkt: c.jkt, credential: c.credential, authenticated: c.authenticated, platform: c.platform };
  } catch (err) {
    if (!(err instanceof AuthFailure)) throw err;
    deps.log.warn('authentication refused', { operation: op.name, code: err.detailCode, detail: err.logDetail });
    const code: ProtocolErrorCode = err.code;
    const errors = err.extra.errors as Array<{ field: string; message: string }> | undefined;
    const { errors: _e, retry_after, ...extra } = err.extra;
    throw new ProtocolError(code, err.publicMessage, {
      // A missing field is a plain invalid_request (its errors[] name the field).
      detailCode: code === 'invalid_request' ? undefined : err.detailCode,
      errors,
      extra: { ...extra, accepted_mechanisms: deps.authPolicy.accepted },
      retryAfter: typeof retry_after === 'number' ? retry_after : undefined,
    });
  }
}
