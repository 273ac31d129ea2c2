/**
 * Dynamic Client Registration (RFC 7591) held to account. Registration is open (an MCP host
 * registers itself), so it is what an attacker can repeat at will; each registration is a record
 * in the database. Before the library sees a registration request:
 * - it is rate-limited per client address and in total (token buckets, per minute);
 * - the address's live registrations are capped (counted in the store, so every process sharing
 *   the database sees them); the registrant is kept as a keyed hash, never as the address;
 * - a registration naming a `usp_platform_profile` must prove control of that profile, as a
 *   registry registration does: an RFC 9421 signature over the request (body included, through
 *   Content-Digest, and fresh: `created` within five minutes, each signature once) made with a key
 *   that profile publishes.
 * A client written this way expires after `unusedClientTtlMs` unless it completes a grant (the
 * adapter keeps it at its first token). Every outcome is counted and leaves one log line, with no
 * personal data (no address, no client name).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type Provider from 'oidc-provider';
import type { Logger } from '../operations/index.js';
import {
  findKey,
  tokenBuckets,
  uspRequiredComponents,
  verifyRequestSignature,
  type ProfileResolver,
} from '../security/index.js';
import type { Store } from '../store/index.js';
import type { AdapterHooks } from './adapter.js';
import { PROFILE_METADATA } from './provider.js';

export interface RegistrationLimits {
  /** Registrations per minute from one client address (default 10). */
  perAddressPerMinute: number;
  /** Registrations per minute from everyone together (default 60). */
  totalPerMinute: number;
  /** Registered clients from one address alive at once (default 50). */
  perRegistrant: number;
  /** A registered client that never completes a grant is forgotten after this (default 24 h). */
  unusedClientTtlMs: number;
}

export const DEFAULT_REGISTRATION_LIMITS: Readonly<RegistrationLimits> = {
  perAddressPerMinute: 10,
  totalPerMinute: 60,
  perRegistrant: 50,
  unusedClientTtlMs: 24 * 3600_000,
};

/** A registration signature's `created` may be this old. */
export const REGISTRATION_SIGNATURE_MAX_AGE_S = 300;
/** Expired OAuth records are dropped at most this often (on a successful registration). */
const PURGE_INTERVAL_MS = 10 * 60_000;

export interface RegistrationOptions {
  store: Store;
  log: Logger;
  limits: RegistrationLimits;
  /** Keys the registrant hash (so the stored owner cannot be turned back into an address). */
  secret: Buffer;
  /** Where platform profiles are fetched from (the server's one resolver, with its allowlist). */
  profiles: ProfileResolver;
  /** The registration endpoint as published (what a signature's @authority and @path name). */
  endpointUrl: () => string;
  /** Each registration's outcome: `registered`, or why it was refused. */
  onOutcome?: (outcome: string) => void;
}

type NodeEnv = { incoming: IncomingMessage; outgoing: ServerResponse };

interface Attempt {
  owner: string;
  expiresMs: number;
  clientId?: string;
  failure?: { error: string; description?: string };
}

export interface DynamicRegistration {
  /** For the storage adapter: the owner and expiry of the client a registration writes. */
  hooks: AdapterHooks;
  /** Listen to the provider's registration events (its outcome, in the request's context). */
  attach(provider: Provider): void;
  /** Answer POST /oauth/register: refuse it here, or hand it to the library through `pass`. */
  handle(
    req: Request,
    node: NodeEnv,
    address: string,
    pass: (incoming: IncomingMessage) => Promise<Response>,
  ): Promise<Response>;
}

export function dynamicRegistration(o: RegistrationOptions): DynamicRegistration {
  const attempts = new AsyncLocalStorage<Attempt>();
  const buckets = tokenBuckets({
    register_address: o.limits.perAddressPerMinute,
    register_total: o.limits.totalPerMinute,
  });
  let lastPurge = 0;

  const refuse = (
    outcome: string,
    status: number,
    error: string,
    description: string,
    headers: Record<string, string> = {},
  ) => {
    o.onOutcome?.(outcome);
    o.log.warn('oauth client registration refused', { reason: outcome, detail: description });
    return Response.json(
      { error, error_description: description },
      { status, headers: { 'Cache-Control': 'no-store', ...headers } },
    );
  };

  /** The problem with the request's proof of control of `profileUrl`, or undefined when it holds. */
  const controlProblem = async (req: Request, body: Uint8Array, profileUrl: string): Promise<string | undefined> => {
    if (!req.headers.has('signature-input') || !req.headers.has('signature')) return 'the request is not signed';
    if (!req.headers.has('content-digest'))
      return 'the request has no Content-Digest, so its signature would not cover the body';
    const now = Date.now();
    try {
      const v = await verifyRequestSignature(
        { method: req.method, url: o.endpointUrl(), headers: req.headers, body },
        async (keyid) => findKey(await o.profiles.resolve(profileUrl), keyid),
        {
          now,
          maxAgeSeconds: REGISTRATION_SIGNATURE_MAX_AGE_S,
          requiredComponents: (present) => [
            ...new Set([...uspRequiredComponents(present), 'content-type', 'content-digest']),
          ],
        },
      );
      if (v.created === undefined) return 'the signature has no created parameter';
      const id = createHash('sha256').update(req.headers.get('signature')!).digest('base64url');
      const fresh = await o.store.transaction((tx) =>
        tx.security.claimJti(`dcr|${id}`, now, now + 2 * REGISTRATION_SIGNATURE_MAX_AGE_S * 1000 + 60_000),
      );
      return fresh ? undefined : 'the signature was already used';
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code !== 'string') throw e;
      return `${code}: ${(e as Error).message}`;
    }
  };

  const purgeNowAndThen = () => {
    const now = Date.now();
    if (now - lastPurge < PURGE_INTERVAL_MS) return;
    lastPurge = now;
    o.store
      .transaction((tx) => tx.oauth.purge(now))
      .catch((err: unknown) => o.log.warn('could not drop expired OAuth records', { error: String(err) }));
  };

  return {
    hooks: {
      newClient: () => {
        const a = attempts.getStore();
        return a ? { owner: a.owner, expiresMs: a.expiresMs } : undefined;
      },
    },

    attach(provider) {
      provider.on('registration_create.success', (_ctx: unknown, client: { clientId: string }) => {
        const a = attempts.getStore();
        if (a) a.clientId = client.clientId;
      });
      provider.on('registration_create.error', (_ctx: unknown, err: { error?: string; error_description?: string }) => {
        const a = attempts.getStore();
        if (a) a.failure = { error: err.error ?? 'invalid_request', description: err.error_description };
      });
    },

    async handle(req, node, address, pass) {
      // The total is spent only by registrations their address lets through.
      let wait = buckets.take([`addr:${address}`], 'register_address', 1, performance.now());
      if (wait === 0) wait = buckets.take(['all'], 'register_total', 1, performance.now());
      if (wait > 0) {
        return refuse(
          'rate_limited',
          429,
          'invalid_request',
          `Too many client registrations; try again in ${wait} seconds.`,
          { 'Retry-After': String(wait) },
        );
      }
      const owner = `registrant:${createHmac('sha256', o.secret).update(address).digest('base64url').slice(0, 32)}`;
      const live = await o.store.read((tx) => tx.oauth.byAccount('Client', owner, Date.now()));
      if (live.length >= o.limits.perRegistrant) {
        const next = Math.min(...live.map((r) => r.expiresMs ?? Infinity));
        const retry = Number.isFinite(next)
          ? { 'Retry-After': String(Math.max(1, Math.ceil((next - Date.now()) / 1000))) }
          : undefined;
        return refuse(
          'registrant_cap',
          429,
          'invalid_request',
          `This address has ${live.length} registered clients; clients that never complete a grant are forgotten ${Math.round(o.limits.unusedClientTtlMs / 3600_000)} h after registering.`,
          retry,
        );
      }
      const body = new Uint8Array(await req.arrayBuffer());
      const meta = jsonObject(body);
      const profile = meta?.[PROFILE_METADATA];
      if (typeof profile === 'string') {
        const problem = await controlProblem(req, body, profile);
        if (problem) {
          return refuse(
            'profile_control_not_proven',
            400,
            'invalid_client_metadata',
            `${PROFILE_METADATA}: prove control of this profile: sign the registration request (RFC 9421, with created) with a key the profile publishes in keys[], covering @method, @authority, @path, content-type and content-digest (${problem}).`,
          );
        }
      }
      const attempt: Attempt = { owner, expiresMs: Date.now() + o.limits.unusedClientTtlMs };
      const answer = await attempts.run(attempt, () => pass(replayed(node.incoming, body)));
      if (node.outgoing.statusCode === 201 && attempt.clientId) {
        o.onOutcome?.('registered');
        o.log.info('oauth client registered', {
          client_id: attempt.clientId,
          grant_types: Array.isArray(meta?.grant_types) ? meta.grant_types.map(String).slice(0, 5) : undefined,
          application_type: typeof meta?.application_type === 'string' ? meta.application_type.slice(0, 16) : undefined,
          platform_profile: typeof profile === 'string',
        });
        purgeNowAndThen();
      } else {
        const failure = attempt.failure ?? { error: `status_${node.outgoing.statusCode}` };
        o.onOutcome?.(failure.error);
        o.log.warn('oauth client registration refused', {
          reason: failure.error,
          detail: failure.description?.slice(0, 200),
        });
      }
      return answer;
    },
  };
}

function jsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Node request once more, its body the bytes already read: the library reads a body from the
 * request stream itself (a parsed `req.body` it accepts only with a warning on the console).
 */
function replayed(incoming: IncomingMessage, body: Uint8Array): IncomingMessage {
  const stream = Readable.from([Buffer.from(body)], { objectMode: false });
  const headers = { ...incoming.headers, 'content-length': String(body.byteLength) };
  delete headers['transfer-encoding'];
  for (const key of [
    'url',
    'method',
    'httpVersion',
    'httpVersionMajor',
    'httpVersionMinor',
    'socket',
    'connection',
    'rawHeaders',
    'complete',
  ] as const) {
    Object.defineProperty(stream, key, { value: incoming[key], enumerable: true, writable: true });
  }
  Object.defineProperty(stream, 'headers', { value: headers, enumerable: true, writable: true });
  return stream as unknown as IncomingMessage;
}
