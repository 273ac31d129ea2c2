/**
 * One business, as a platform speaks to it: discovered, negotiated, and every operation behind one
 * `call` whichever binding the business offers (REST, or MCP when that is all it offers or the
 * platform prefers it). A write gets an idempotency key that every retry reuses; a conditional
 * write sends the revision last read; a credential the business issues is kept through the
 * storage hook and presented, with a proof by the key it is bound to, on the calls about its
 * resource. What goes wrong comes back as a `UspError` value on the answer, never thrown.
 */
import { randomUUID } from 'node:crypto';
import type { Message } from '../domain/index.js';
import {
  bindingsOf,
  negotiate,
  profileUrlOf,
  ProfileCache,
  type BusinessProfile,
  type Negotiated,
} from './discovery.js';
import { UspError, fromMessages, fromProblem, fromRpcError, transportError, verificationError } from './errors.js';
import type { PlatformIdentity } from './identity.js';
import { connectHttpMcp, type McpClient } from './mcp-transport.js';
import { CLIENT_OPERATIONS, type ClientOperation, type OperationName } from './operations.js';
import { dpopHeaders, withMcpProof, type PopKey } from './platform-auth.js';
import { RestClient } from './rest-transport.js';
import type { OperationResults } from './types.js';

export interface StoredCredential {
  value: string;
  /** The thumbprint of the proof key it is bound to. */
  jkt: string;
  expires_at?: string;
}

/** Where booking-scoped credentials are kept (a database in production; memory by default). */
export interface CredentialStore {
  get(business: string, resourceId: string): StoredCredential | undefined | Promise<StoredCredential | undefined>;
  set(business: string, resourceId: string, credential: StoredCredential): void | Promise<void>;
}

export function memoryCredentials(): CredentialStore {
  const m = new Map<string, StoredCredential>();
  return { get: (b, id) => m.get(`${b} ${id}`), set: (b, id, c) => void m.set(`${b} ${id}`, c) };
}

export interface ClientOptions {
  identity: PlatformIdentity;
  credentials?: CredentialStore;
  profiles?: ProfileCache;
  /** The binding to use when the business offers both. Default REST. */
  prefer?: 'rest' | 'mcp';
  /** Sends after the first, for what is safe to send again (same idempotency key). Default 2. */
  retries?: number;
  /** Per-request deadline, ms. Default 10 s. */
  timeoutMs?: number;
  /** The longest Retry-After honoured, seconds. Default 5. */
  maxRetryAfter?: number;
  /** How every request to the business is sent (`pinnedFetch` for a business somebody else named); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export interface CallOptions {
  /** The idempotency key (a write gets a new one by default); the same key is reused on every retry. */
  idempotencyKey?: string;
  /** The revision last read, for a conditional write. */
  ifMatch?: string;
  /** A credential to present instead of the stored one. */
  credential?: StoredCredential;
}

export interface UspAnswer<T = Record<string, any>> {
  /** The operation did what was asked (no protocol error, no error in messages). */
  ok: boolean;
  data: T;
  messages: Message[];
  error: UspError | null;
  binding: 'rest' | 'mcp';
  idempotencyKey?: string;
  /** The text an MCP tool gave with its result. */
  text?: string;
  /** Requests sent (retries included). */
  attempts: number;
}

type Sent =
  | { kind: 'answer'; status: number; body: any; text?: string; nonce?: string }
  | { kind: 'error'; error: UspError; nonce?: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class BusinessClient {
  private mcp: McpClient | null = null;
  private nonce: string | undefined;
  binding!: 'rest' | 'mcp';
  private rest: RestClient | null = null;

  private constructor(
    readonly profileUrl: string,
    public profile: BusinessProfile,
    public negotiated: Negotiated,
    private endpoints: { rest?: string; mcp?: string },
    private readonly o: ClientOptions & { credentials: CredentialStore; profiles: ProfileCache },
  ) {
    this.bind(endpoints);
  }

  private bind(endpoints: { rest?: string; mcp?: string }): void {
    this.endpoints = endpoints;
    this.binding = endpoints.rest && (this.o.prefer !== 'mcp' || !endpoints.mcp) ? 'rest' : 'mcp';
    this.rest = endpoints.rest
      ? new RestClient(endpoints.rest, this.o.identity.profileUrl, this.o.timeoutMs ?? 10_000, undefined, this.o.fetch)
      : null;
  }

  /**
   * Read the profile again, ignoring the cache (bounded by the request deadline): when the business
   * moved its endpoints since it was read, the client binds to the new ones and answers true.
   */
  private async profileMoved(): Promise<boolean> {
    const timeoutMs = this.o.timeoutMs ?? 10_000;
    const read = await Promise.race([
      this.o.profiles.get(this.profileUrl, { force: true }).catch(() => null),
      sleep(timeoutMs).then(() => null),
    ]);
    if (!read) return false;
    const endpoints = bindingsOf(read.profile);
    if (!endpoints.rest && !endpoints.mcp) return false;
    this.profile = read.profile;
    this.negotiated = negotiate(read.profile, this.o.identity.capabilities);
    if (endpoints.rest === this.endpoints.rest && endpoints.mcp === this.endpoints.mcp) return false;
    await this.close();
    this.bind(endpoints);
    return true;
  }

  /** Discover the business at `url` (its base URL or profile URL) and agree on what both speak. */
  static async connect(url: string, o: ClientOptions): Promise<BusinessClient> {
    const profiles = o.profiles ?? new ProfileCache({ timeoutMs: o.timeoutMs, ...(o.fetch ? { fetch: o.fetch } : {}) });
    const profileUrl = profileUrlOf(url);
    const { profile } = await profiles.get(profileUrl);
    const endpoints = bindingsOf(profile);
    if (!endpoints.rest && !endpoints.mcp)
      throw verificationError('no_binding', `${profileUrl} offers neither a REST nor an MCP binding`);
    return new BusinessClient(profileUrl, profile, negotiate(profile, o.identity.capabilities), endpoints, {
      ...o,
      profiles,
      credentials: o.credentials ?? memoryCredentials(),
    });
  }

  /** The business's name as its profile gives it. */
  get name(): string {
    return this.profile.usp.business?.name ?? new URL(this.profileUrl).host;
  }

  offers(op: OperationName): boolean {
    return CLIENT_OPERATIONS[op].capability in this.negotiated.capabilities;
  }

  /** Call one operation on the chosen binding. */
  async call<N extends OperationName, T = OperationResults[N]>(
    name: N,
    input: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<UspAnswer<T>> {
    const op: ClientOperation = CLIENT_OPERATIONS[name];
    const key = opts.idempotencyKey ?? (op.mutating ? randomUUID() : undefined);
    const base = { binding: this.binding, ...(key ? { idempotencyKey: key } : {}) };
    if (!this.offers(name)) {
      const error = new UspError(
        'protocol',
        'capability_not_agreed',
        `${this.name} and this platform do not share ${op.capability}`,
        'unrecoverable',
        'give_up',
      );
      return { ok: false, data: {} as T, messages: [], error, attempts: 0, ...base };
    }
    const resource = op.scoped ? input[op.scoped] : undefined;
    let credential =
      opts.credential ??
      (typeof resource === 'string' ? await this.o.credentials.get(this.profileUrl, resource) : undefined);
    const retries = this.o.retries ?? 2;
    let attempts = 0;
    let nonceRetried = false;
    let profileReread = false;
    for (;;) {
      attempts++;
      const sent = await this.send(op, input, key, opts.ifMatch, credential);
      if (sent.nonce) this.nonce = sent.nonce;
      if (sent.kind === 'error') {
        const e = sent.error;
        // A nonce challenge is answered once with the nonce it carried (a proof is single-use: a fresh one is made).
        if (e.code === 'proof_nonce_required' && sent.nonce && !nonceRetried) {
          nonceRetried = true;
          attempts--;
          continue;
        }
        // A stored credential the business no longer honours (revoked with a cancellation, expired):
        // sent again once without it, on the platform's own authority (nothing was done: the same key).
        if (e.code === 'credential_invalid' && credential && !opts.credential) {
          credential = undefined;
          attempts--;
          continue;
        }
        // No USP answer (nothing there, or a 404 no USP business wrote): the profile may be stale, the
        // business moved. Read once more; sent again where it now is, with the same idempotency key.
        if (
          !profileReread &&
          (e.kind === 'transport' ||
            (e.details.status === 404 && typeof (e.details.body as { code?: unknown } | undefined)?.code !== 'string'))
        ) {
          profileReread = true;
          if (await this.profileMoved()) {
            attempts--;
            continue;
          }
        }
        const wait = e.details.retryAfter;
        if (e.retryable && attempts <= retries && (wait === undefined || wait <= (this.o.maxRetryAfter ?? 5))) {
          await sleep(wait !== undefined ? wait * 1000 : 100 * 2 ** attempts);
          continue;
        }
        const error = e.kind === 'transport' ? transportError(e.message, attempts) : e;
        return { ok: false, data: {} as T, messages: [], error, attempts, ...base };
      }
      const { usp, messages = [], ...data } = (sent.body ?? {}) as Record<string, any>;
      // Every answer with a body carries the protocol envelope (spec 8.4): one without it is not a USP answer to trust.
      if (Object.keys(sent.body ?? {}).length > 0 && typeof usp?.version !== 'string') {
        const error = verificationError(
          'envelope_missing',
          `${this.name} answered ${op.tool} without the usp envelope; the answer is not used`,
        );
        return { ok: false, data: {} as T, messages: [], error, attempts, ...base };
      }
      await this.keepCredential(data, this.o.identity.keyFor(credential?.jkt).jkt);
      const error = fromMessages(messages);
      return {
        ok: error === null,
        data: data as T,
        messages,
        error,
        attempts,
        ...(sent.text ? { text: sent.text } : {}),
        ...base,
      };
    }
  }

  /** A credential in an answer is kept for the resource it was issued with (a booking before a hold or entry). */
  private async keepCredential(data: Record<string, any>, jkt: string): Promise<void> {
    const c = data.booking_scoped_credential;
    const id = data.booking?.id ?? data.hold?.id ?? data.entry?.id;
    if (!c || typeof c.value !== 'string' || typeof id !== 'string') return;
    await this.o.credentials.set(this.profileUrl, id, {
      value: c.value,
      jkt,
      ...(c.expires_at ? { expires_at: c.expires_at } : {}),
    });
  }

  private requiresProof(): boolean {
    const a = this.profile.authorization;
    return (
      a?.privileged_operations_require_authentication === true &&
      (a.accepted_mechanisms ?? []).includes('platform_key_pop')
    );
  }

  private async send(
    op: ClientOperation,
    input: Record<string, unknown>,
    key: string | undefined,
    ifMatch: string | undefined,
    credential: StoredCredential | undefined,
  ): Promise<Sent> {
    const popKey = this.o.identity.keyFor(credential?.jkt);
    const proof = {
      ...(this.nonce ? { nonce: this.nonce } : {}),
      ...(credential ? { credential: credential.value } : {}),
    };
    try {
      return this.binding === 'rest'
        ? await this.sendRest(op, input, key, ifMatch, popKey, proof)
        : await this.sendMcp(op, input, key, ifMatch, popKey, proof);
    } catch (err) {
      if (err instanceof UspError) return { kind: 'error', error: err };
      return {
        kind: 'error',
        error: transportError(`${this.name} could not be reached: ${(err as Error).message}`, 1),
      };
    }
  }

  private async sendRest(
    op: ClientOperation,
    input: Record<string, unknown>,
    key: string | undefined,
    ifMatch: string | undefined,
    popKey: PopKey,
    proof: { nonce?: string; credential?: string },
  ): Promise<Sent> {
    const rest = this.rest!;
    rest.profile = this.o.identity.profileUrl;
    const rem: Record<string, unknown> = { ...input };
    const path = op.path.replace(/\{(\w+)\}/g, (_, k: string) => {
      const v = rem[k];
      delete rem[k];
      return encodeURIComponent(String(v ?? ''));
    });
    const query =
      op.input === 'query'
        ? new URLSearchParams(
            Object.entries(rem).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
          ).toString()
        : '';
    const proving = op.privileged && (this.requiresProof() || proof.credential !== undefined);
    const auth = (method: string, url: string, headers: Record<string, string>) =>
      proving ? { ...headers, ...dpopHeaders(popKey, method, url, proof) } : headers;
    const a = await rest.send(query ? `${path.slice(1)}?${query}` : path.slice(1), {
      method: op.method,
      ...(op.input === 'body' ? { body: rem } : {}),
      ...(key ? { idempotencyKey: key } : {}),
      ...(ifMatch ? { ifMatch } : {}),
      auth,
    });
    const nonce = a.headers.get('dpop-nonce') ?? undefined;
    if (a.status >= 200 && a.status < 300)
      return { kind: 'answer', status: a.status, body: a.body ?? {}, ...(nonce ? { nonce } : {}) };
    const retryAfter = Number(a.headers.get('retry-after'));
    if (a.status >= 500 && a.body?.code === undefined)
      return { kind: 'error', error: transportError(`${this.name} answered HTTP ${a.status}`, 1) };
    return {
      kind: 'error',
      error: fromProblem(
        a.status,
        a.body,
        Number.isFinite(retryAfter) && a.headers.has('retry-after') ? retryAfter : undefined,
      ),
      ...(nonce ? { nonce } : {}),
    };
  }

  private async sendMcp(
    op: ClientOperation,
    input: Record<string, unknown>,
    key: string | undefined,
    ifMatch: string | undefined,
    popKey: PopKey,
    proof: { nonce?: string; credential?: string },
  ): Promise<Sent> {
    this.mcp ??= await connectHttpMcp(this.endpoints.mcp!, this.o.timeoutMs ?? 10_000, this.o.fetch);
    const usp: Record<string, unknown> = { profile: this.o.identity.profileUrl };
    if (key) usp.idempotency_key = key;
    if (ifMatch) usp.if_match = ifMatch;
    let args: Record<string, unknown> = { ...input, _meta: { usp } };
    if (op.privileged && (this.requiresProof() || proof.credential !== undefined))
      args = withMcpProof(popKey, op.tool, args, this.profileUrl, proof);
    const a = await this.mcp.call(op.tool, args);
    if (a.error) {
      const nonce = typeof a.error.data?.nonce === 'string' ? a.error.data.nonce : undefined;
      return { kind: 'error', error: fromRpcError(a.error), ...(nonce ? { nonce } : {}) };
    }
    if (!a.result) {
      // A session the business no longer knows (it restarted): the next attempt opens a new one.
      this.mcp = null;
      return { kind: 'error', error: transportError(`${this.name} gave no MCP answer (HTTP ${a.status})`, 1) };
    }
    const text = (a.result.content ?? []).find((c: any) => c?.type === 'text')?.text;
    return {
      kind: 'answer',
      status: 200,
      body: a.result.structuredContent ?? {},
      ...(typeof text === 'string' ? { text } : {}),
    };
  }

  async close(): Promise<void> {
    await this.mcp?.close().catch(() => undefined);
    this.mcp = null;
  }
}

/** What an error means for the messages a caller shows: `error` when an answer was not ok. */
export function describeError(e: UspError): string {
  return `${e.code} (${e.kind}, ${e.severity}; next: ${e.next}): ${e.message}`;
}
