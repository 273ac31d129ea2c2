/**
 * The one path every call takes, whichever door it came through:
 * identify the caller -> check the access tier -> validate input -> idempotency replay? ->
 * handler in one store transaction (preconditions checked inside, events written to the outbox
 * in the same transaction, with the rows each registered channel writes for them) -> store the idempotent
 * result -> tell the scope's channels a write committed (a read tells nobody).
 */
import { errorMessage, negotiateLocale, type Message } from '../../domain/index.js';
import type { OutboxEvent, StoreUnavailable } from '../../store/index.js';
import { isDefinitionChanged, isStoreUnavailable } from './store-faults.js';
import { MissingResource, ProtocolError } from './errors.js';
import { RefusedMove } from './invalid-transition.js';
import type { OperationDef } from './define.js';
import { outboxEvent, type Caller, type OperationContext, type RaisedEvent } from './context.js';
import type { Clock } from './clock.js';
import type { IdSource } from './ids.js';
import type { CallScope } from './scope.js';
import { USP_VERSION, uspEnvelope, type UspEnvelope } from './envelope.js';
import { negotiatedEnvelope, prunedCapabilities, prunedData, sharesCapability } from './negotiation.js';
import { authenticateCall, type Presented } from './authenticate.js';
import type { Logger } from './logger.js';
import { issueCredential, type IssuedCredential, type RateQuota } from '../../security/index.js';
import type { Business } from '../business.js';
import { hashOf, normalizeIdempotencyKey, normalizeRevision, parseInput } from './call-input.js';

/** Idempotency records are kept at least this long (spec 9.1.1). */
const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/** A call as both doors hand it over: raw input plus the protocol metadata that rode with it. */
export interface OperationRequest {
  /** Path parameters merged with the body or query; not yet validated. */
  input: unknown;
  /** Platform profile URI (USP-Agent `profile`, or `_meta.usp.profile`). */
  profile?: string | null;
  idempotencyKey?: string | null;
  ifMatch?: string | null;
  /** Credentials, proofs and HTTP evidence as the door carried them. */
  presented?: Presented;
  /** A caller resolved outside the pipeline (the business's own CLI). */
  trustedCaller?: Caller;
  /** The caller's correlation id (or the door's fresh one): written into every log line about the call. */
  correlationId?: string;
  /** Which door the call came through, for logs and metrics; default the binding it presented, else `rest` (or `cli` for a trusted caller). */
  door?: string;
  /**
   * The buyer's language as the door found it (MCP: `_meta["dev.usp-server/locale"]`); absent, the
   * request's Accept-Language (REST, and MCP over HTTP). Mail about what the call creates is written in it.
   */
  locale?: string | null;
}

/**
 * What the pipeline reports about every call once it is answered (one log line, one set of metrics).
 * `outcome` is `ok`, the first business error message's code (`slot_unavailable`), or the protocol
 * error's code (`invalid_request`, `rate_limited`, `server_error`): closed sets, safe as metric labels.
 */
export interface CallRecord {
  correlation_id: string | undefined;
  operation: string;
  door: string;
  /** The authenticated principal, `business` for the business's own tools, `anonymous`, or `unknown` when refused before identification. */
  principal: string;
  outcome: string;
  /** False when the call was answered with a protocol error. */
  ok: boolean;
  replayed: boolean;
  duration_ms: number;
}

/** `rate`: what the call's rate limit left its subjects (passed or refused), for a door's RateLimit fields; absent when unlimited. */
export type OperationResponse = (
  | {
      ok: true;
      status: 200 | 201 | 204;
      usp: UspEnvelope;
      data: Record<string, unknown>;
      messages: Message[];
      replayed: boolean;
      caller: Caller;
      /** The business snapshot the call ran with (absent for the registry role): a door describing the answer uses this one. */
      business?: Business;
    }
  | { ok: false; error: ProtocolError }
) & { rate?: RateQuota };

/**
 * What the pipeline holds for every call of every business: the clock, the id source and the log.
 * Everything per business (the business's snapshot, its store, auth policy, services and workers)
 * comes with each call, in its scope (./scope.ts).
 */
export interface PipelineDeps {
  clock: Clock;
  ids: IdSource;
  log: Logger;
  /** Told about every answered call (metrics); the pipeline writes the call's log line itself. */
  onCall?: (call: CallRecord) => void;
}

interface StoredResult {
  status: 200 | 201 | 204;
  data: Record<string, unknown>;
  messages: Message[];
}

export class Pipeline {
  constructor(private readonly deps: PipelineDeps) {}

  /** The pipeline's clock: what "now" is for the answers it gives. */
  now(): number {
    return this.deps.clock.now();
  }

  /**
   * The principal's most recent events, newest first (at most `limit`), as delivered: read from the
   * store's outbox, so every process sharing the store answers the same. Only events already due
   * and dispatched; scheduled reminders are not news yet.
   */
  async recentEvents(scope: CallScope, principal: string, limit: number): Promise<Record<string, unknown>[]> {
    return scope.store.read((tx) => tx.outbox.recentBodies(principal, Math.max(1, Math.min(limit, 100))));
  }

  private active = 0;
  /** Who waits for the calls to drain (made by the first `drain` that waits). */
  private drained: Set<() => void> | undefined;

  /** Calls being executed right now (both doors). */
  get inFlight(): number {
    return this.active;
  }

  /** Resolve true once no call is in flight, or false after `timeoutMs` (graceful shutdown). */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    let done: (() => void) | undefined;
    const ok = await Promise.race([
      new Promise<true>((r) => (this.drained ??= new Set()).add((done = () => r(true)))),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (done) this.drained?.delete(done);
    return ok;
  }

  /**
   * Run one call, whichever door brought it, and report it: the one place where every call is
   * logged (correlation id, operation, door, principal, outcome, duration) and measured.
   */
  async execute(op: OperationDef, req: OperationRequest, scope: CallScope): Promise<OperationResponse> {
    const started = performance.now();
    const seen: { caller?: Caller; rate?: RateQuota } = {};
    const door = req.door ?? req.presented?.binding ?? (req.trustedCaller ? 'cli' : 'rest');
    this.active++;
    let res: OperationResponse;
    try {
      this.deps.log.debug?.('call received', {
        correlation_id: req.correlationId,
        operation: op.name,
        door,
        input: op.logInput ? op.logInput(req.input) : req.input,
      });
      try {
        res = await this.run(op, req, scope, seen);
      } catch (err) {
        res = { ok: false, error: this.failure(op, req, err) };
      }
    } finally {
      if (--this.active === 0 && this.drained) for (const d of [...this.drained]) d();
    }
    const caller = res.ok ? res.caller : seen.caller;
    const call: CallRecord = {
      correlation_id: req.correlationId,
      operation: op.name,
      door,
      principal: caller ? (caller.business ? 'business' : (caller.principal ?? 'anonymous')) : 'unknown',
      outcome: res.ok ? (res.messages.find((m) => m.type === 'error')?.code ?? 'ok') : res.error.code,
      ok: res.ok,
      replayed: res.ok ? res.replayed : false,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    };
    this.deps.log.info('call', call as unknown as Record<string, unknown>);
    try {
      this.deps.onCall?.(call);
    } catch (err) {
      this.deps.log.warn('call observer failed', { error: String(err) });
    }
    return seen.rate ? { ...res, rate: seen.rate } : res;
  }

  /** What a call that threw answers: its protocol error, the store's unavailability, or a logged server_error. */
  private failure(op: OperationDef, req: OperationRequest, err: unknown): ProtocolError {
    if (err instanceof ProtocolError) return err;
    if (isStoreUnavailable(err)) return storeUnavailable(op.name, err, this.deps.log);
    this.deps.log.error('operation failed', {
      operation: op.name,
      correlation_id: req.correlationId,
      error: describe(err),
    });
    return new ProtocolError('server_error', 'The business could not process the request.');
  }

  private async run(
    op: OperationDef,
    req: OperationRequest,
    scope: CallScope,
    seen: { caller?: Caller; rate?: RateQuota },
  ): Promise<OperationResponse> {
    // The call's business: one snapshot, taken now and kept to the end whatever is adopted meanwhile.
    // A call that may write has its definition version checked inside its write transaction, with
    // its first statement (`verifyVersion`); any other call brings the business up to date first.
    const deferred = op.writes || op.mutating;
    if (!deferred) await scope.business?.refresh();
    let biz = scope.business?.current();
    const refreshed = async (): Promise<void> => {
      await scope.business?.refresh();
      biz = scope.business?.current();
    };
    if (!biz && !op.registry) throw new Error(`${op.name} is a business operation and this scope serves no business`);
    const store = scope.store;
    const input = parseInput(op.input, req.input);
    const caller =
      req.trustedCaller ??
      (await authenticateCall(
        op,
        input as Record<string, unknown>,
        req,
        { store, authPolicy: scope.authPolicy, log: this.deps.log },
        this.deps.clock.now(),
        seen,
      ));
    seen.caller = caller;
    const shared = caller.platform ? prunedCapabilities(caller.platform.capabilities) : null;
    const usp = shared ? negotiatedEnvelope(uspEnvelope(op), shared) : uspEnvelope(op);
    // A public read is answered whatever the platform declares; only extension data it lacks is left out.
    const refused = op.access === 'public' ? null : negotiate(op, caller, shared);
    if (refused) {
      if (deferred) await refreshed();
      return { ok: true, status: 200, usp, data: {}, messages: [refused], replayed: false, caller, business: biz };
    }

    const key = op.mutating ? normalizeIdempotencyKey(req.idempotencyKey) : undefined;
    const scopeKey = key
      ? `${caller.principal ?? (caller.business ? 'business' : 'anonymous')}|${op.name}|${key}`
      : undefined;
    const requestHash = scopeKey ? hashOf(input) : '';
    const ifMatch = op.conditional && req.ifMatch ? normalizeRevision(req.ifMatch) : undefined;
    const locale = negotiateLocale(req.locale ?? req.presented?.http?.headers['accept-language'], undefined);

    const env = scope.env;
    const prepared = op.prepare
      ? await op.prepare(input, {
          now: this.deps.clock.now(),
          caller,
          env,
          read: (fn) => store.read(fn),
          http: req.presented?.http,
        })
      : undefined;

    const events: OutboxEvent[] = [];
    const created = new Set<string>();
    let queued = false;
    const writes = Boolean(op.writes || scopeKey);
    if (deferred && !writes) await refreshed();
    // The version the call's snapshot was compiled from, checked in the transaction; see below.
    let verify = deferred && writes ? biz?.definitionVersion : undefined;
    const run = async (tx: OperationContext['tx']) => {
      // A store may run this again after a deadlock or serialization failure: start from scratch.
      events.length = 0;
      queued = false;
      created.clear();
      if (verify !== undefined) await tx.definition.verifyVersion(verify);
      const now = this.deps.clock.now();
      // A registry operation's context has no business at all (RegistryContext); the check above keeps
      // a business operation from running without one.
      const ctx = {
        tx,
        env,
        prepared,
        now,
        ...(biz ? { biz } : {}),
        caller,
        ids: this.deps.ids,
        ifMatch,
        locale,
        issueCredential: async (kind, resourceId, expiresMs): Promise<IssuedCredential | undefined> => {
          if (caller.business) return undefined;
          return issueCredential(tx.security, {
            kind,
            resourceId,
            jkt: caller.jkt ?? null,
            principal: caller.principal,
            expiresMs,
          });
        },
        emit: (e: RaisedEvent) => {
          events.push(outboxEvent(e, this.deps.ids, now));
        },
        queued: () => {
          queued = true;
        },
        created: (bookingId: string) => {
          created.add(bookingId);
        },
      } as OperationContext;
      let res: Awaited<ReturnType<typeof op.handle>>;
      if (scopeKey) {
        // One key, one execution, even when two processes receive it at once. The key's lock and
        // record are read together with the handler's first reads (after that lock, one round trip);
        // a key already used rolls back whatever the handler did, as a retried attempt's is.
        const [prior, handled] = await tx.together(
          () => tx.idempotency.claim(scopeKey, now),
          () =>
            (async () => op.handle(input, ctx))().then(
              (r) => ({ r }),
              (error: unknown) => ({ error }),
            ),
        );
        if (prior) {
          if (prior.request_hash !== requestHash) {
            throw new ProtocolError(
              'idempotency_conflict',
              'This idempotency key was already used with different parameters; use a new key for a new request.',
            );
          }
          throw new Replayed(prior.body as StoredResult);
        }
        if ('error' in handled) throw handled.error;
        res = handled.r;
      } else res = await op.handle(input, ctx);
      const result: StoredResult = {
        status: res.messages?.some((m) => m.type === 'error')
          ? 200
          : (res.status ?? (op.creates ? 201 : op.empty ? 204 : 200)),
        data: res.data,
        messages: res.messages ?? [],
      };
      for (const e of events) await tx.outbox.add(e);
      // Channels write only for raised events: a call that raised none (a read) skips the step.
      if (events.length > 0) await scope.channels.write(tx, { biz, events, now, created });
      // Every state-changing call the business makes is recorded: who, what, on which resource, when.
      if (caller.business && op.mutating) {
        await tx.admin.addAudit({
          at_ms: now,
          actor: caller.actor ?? 'business',
          action: op.name,
          target: auditTarget(op, input),
          outcome: result.messages.find((m) => m.type === 'error')?.code ?? 'ok',
        });
      }
      if (scopeKey) {
        await tx.idempotency.put({
          scope: scopeKey,
          request_hash: requestHash,
          status: result.status,
          body: result,
          created_ms: now,
          expires_ms: now + IDEMPOTENCY_RETENTION_MS,
        });
      }
      return { replayed: false, result };
    };

    let done: Awaited<ReturnType<typeof run>>;
    for (;;) {
      try {
        done = writes ? await store.transaction(run) : await store.read(run);
        break;
      } catch (err) {
        // Nothing the attempt wrote is kept: a channel forgets what it held for it (written or not).
        if (writes) scope.channels.rolledBack(events);
        // The key's stored answer: the attempt was rolled back, and nothing it raised leaves.
        if (err instanceof Replayed) {
          events.length = 0;
          queued = false;
          done = { replayed: true, result: err.result };
          break;
        }
        // Another process changed the definition: nothing was kept. The call runs again on the stored
        // one, taken up first (as any call's check before it, not again in the transaction).
        if (verify !== undefined && isDefinitionChanged(err)) {
          verify = undefined;
          await refreshed();
          continue;
        }
        // A move the lifecycle forbids, found after the handler began: nothing it wrote is kept.
        if (err instanceof RefusedMove) return refusedMove(err, caller, usp, biz);
        if (err instanceof MissingResource) return missingResource(err, caller, usp, biz);
        throw err;
      }
    }
    const { replayed, result } = done;
    // A call that raised no event and queued nothing (a read, a lazy expiry with nothing due) wakes nobody.
    if (events.length > 0 || queued) scope.channels.committed(events);
    // The business's own change (its definition among them) is what this process runs from the answer on.
    if (op.access === 'business_only' && op.mutating && !replayed) await scope.business?.refresh();
    const data = shared ? prunedData(result.data, shared) : result.data;
    return { ok: true, status: result.status, usp, data, messages: result.messages, replayed, caller, business: biz };
  }
}

/** The call's Idempotency-Key already has an answer (thrown to roll back the attempt that found it). */
class Replayed extends Error {
  constructor(readonly result: StoredResult) {
    super('replayed');
  }
}

/**
 * `invalid_transition` is a business outcome (spec-next 5.1.1, 9.4.1): HTTP 200, the message in
 * `messages[]`, the resource unchanged. A platform that negotiated a version older than ours was
 * written against the pinned text's 409 family (5.3.6) and gets that (DECISIONS D2).
 */
function refusedMove(
  err: RefusedMove,
  caller: Caller,
  usp: UspEnvelope,
  business: Business | undefined,
): OperationResponse {
  if (caller.platform && caller.platform.version < USP_VERSION) return { ok: false, error: err.asConflict() };
  return { ok: true, status: 200, usp, data: err.data, messages: [err.outcome], replayed: false, caller, business };
}

/**
 * An unknown id in the request path is a 404 protocol error (spec-next 9.4.1, 9.4.3). A platform
 * that negotiated a version older than ours was written against the pinned text's business outcome
 * (HTTP 200 with the message, D3) and gets that.
 */
function missingResource(
  err: MissingResource,
  caller: Caller,
  usp: UspEnvelope,
  business: Business | undefined,
): OperationResponse {
  if (caller.platform && caller.platform.version < USP_VERSION)
    return { ok: true, status: 200, usp, data: {}, messages: [err.outcome], replayed: false, caller, business };
  return { ok: false, error: err.asError() };
}

/** The resource an audited call acted on: its scoped resource, else the first id-like member of its input. */
function auditTarget(op: OperationDef, input: unknown): string | null {
  const inp = (input ?? {}) as Record<string, unknown>;
  if (op.resource) return String(inp[op.resource.key] ?? '') || null;
  const key = Object.keys(inp).find((k) => k.endsWith('_id') && typeof inp[k] === 'string');
  return key ? (inp[key] as string) : null;
}

/** Seconds a caller is asked to wait when the database is away (a restart takes a few). */
const STORE_RETRY_AFTER_S = 2;

/**
 * The database could not serve the call: answer service_unavailable with Retry-After, whichever
 * door asked. Nothing was committed, or a cut-off COMMIT may have landed: the same call with the
 * same Idempotency-Key is safe either way.
 */
function storeUnavailable(operation: string, err: StoreUnavailable, log: Logger): ProtocolError {
  log.warn('database unavailable', { operation, reason: err.reason });
  return new ProtocolError(
    'service_unavailable',
    'The business cannot reach its database right now; retry shortly with the same Idempotency-Key.',
    {
      retryAfter: STORE_RETRY_AFTER_S,
    },
  );
}

/**
 * Version and capability negotiation against a fetched platform profile (spec 8.3, 8.4). The 8.4
 * table: a platform whose version is newer than ours gets `version_unsupported`; an
 * older one is served (in its version's semantics, which ours keep: later versions only add). The
 * intersection of capabilities must hold the one this operation needs, else
 * `capabilities_incompatible` as a business outcome; a profile declaring `capabilities: {}` shares
 * nothing, so it is incompatible with every operation (8.3 step 6), not unrestricted. `shared` is
 * the platform's capabilities with orphaned extensions pruned (8.3 step 4, ./negotiation.ts).
 */
function negotiate(op: OperationDef, caller: Caller, shared: ReadonlySet<string> | null): Message | null {
  const p = caller.platform;
  if (!p) return null;
  if (p.version > USP_VERSION) {
    throw new ProtocolError(
      'version_unsupported',
      `This business speaks USP ${USP_VERSION} at most; the platform profile declares ${p.version}.`,
      {
        extra: { supported_versions: [USP_VERSION] },
      },
    );
  }
  const needed = op.capability;
  if (shared && sharesCapability(shared, needed)) return null;
  return errorMessage(
    'capabilities_incompatible',
    `The platform profile shares none of the capabilities this operation needs (${needed}).`,
  );
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
}
