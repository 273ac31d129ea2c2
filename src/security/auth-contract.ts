/**
 * The contract of authentication: what a request presents (AuthRequest, with its HTTP evidence),
 * the policy it is checked against (AuthPolicy), the caller it becomes (AuthenticatedCaller) and the
 * one failure type every mechanism folds into (AuthFailure, naming the spec's code).
 */
import type { AccessTier, ResourceKind } from '../domain/index.js';
import type { NonceSource } from './nonces.js';
import type { RateLimiter } from './rate-limit.js';

export type AuthFailureCode =
  | 'invalid_request'
  | 'authentication_required'
  | 'pop_proof_required'
  | 'signature_invalid'
  | 'digest_mismatch'
  | 'algorithm_unsupported'
  | 'invalid_profile_url'
  | 'profile_unreachable'
  | 'profile_malformed'
  | 'profile_not_trusted'
  | 'insufficient_scope'
  | 'rate_limited';

export class AuthFailure extends Error {
  constructor(
    readonly code: AuthFailureCode,
    readonly detailCode: string,
    /** What the caller is told. */
    readonly publicMessage: string,
    /** What the log is told. */
    readonly logDetail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(publicMessage);
    this.name = 'AuthFailure';
  }
}

export interface McpAuthorization {
  mechanism: string;
  credential?: string;
  proof?: string;
}

/** What an HTTP request looked like, byte for byte, for signatures and DPoP. */
export interface HttpEvidence {
  method: string;
  /** The absolute URL as received. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body?: Uint8Array;
  /** The client's address (rate limits per address); absent when there is none (in-process). */
  clientAddress?: string;
}

export interface AuthRequest {
  access: AccessTier;
  binding: 'mcp' | 'rest';
  /** The resource a scoped operation addresses. */
  resource?: { kind: ResourceKind; id: string };
  /** OAuth scopes of which an access token must carry one (the operation's row); empty: none needed. */
  scopes?: readonly string[];
  profile: string | null;
  /** MCP: the tool name and the raw `arguments` (for `usp_p`), and `_meta.usp.authorization`. */
  mcp?: { tool: string; rawArguments: Record<string, unknown>; authorization?: McpAuthorization };
  http?: HttpEvidence;
}

export interface AuthenticatedCaller {
  principal: string | null;
  profile: string | null;
  business: boolean;
  /** Thumbprint of the key the caller proved, for binding issued credentials (cnf.jkt). */
  jkt?: string;
  /** The resource a valid booking-scoped credential grants access to. */
  credential?: { kind: string; id: string };
  mechanism?: string;
  authenticated: boolean;
  /**
   * The caller proved it is its profile: a request signature made with a key that profile publishes,
   * or an OAuth token registered for it. Only then does a call count in that profile's rate bucket.
   */
  profileProven?: boolean;
  /** What the fetched platform profile declares, for version and capability negotiation (spec 8.3, 8.4). */
  platform?: PlatformSummary;
  /** The buyer account an OAuth token was linked to (spec 10.2.4), and the scopes the buyer granted. */
  account?: string;
  scopes?: readonly string[];
}

/** What a verified OAuth access token says about its holder. */
export interface OAuthTokenInfo {
  clientId: string;
  /** The buyer account, for a token from the authorization code flow. */
  accountId?: string;
  scopes: readonly string[];
  /** The platform profile the client acts under (its registered one, or the business's profile for generic hosts). */
  profile: string;
  /** Known without fetching (the business's own profile for generic hosts). */
  platform?: PlatformSummary;
  /** The server's own profile for hosts without one: a call naming it is taken as naming none. */
  genericProfile?: string;
  /** The client registered `profile` itself (generic hosts, acting under the business's, did not). */
  profileRegistered?: boolean;
}

/** Why an access token was refused (logged only; the caller is told `invalid_token`). */
export class TokenRefused extends Error {
  override readonly name = 'TokenRefused';
}

export interface PlatformSummary {
  version: string;
  capabilities: string[];
}

export interface VerifiedSignature {
  keyid: string;
  thumbprint: string;
}

export interface AuthPolicy {
  sandbox: boolean;
  adminKeyHashes: readonly string[];
  /** Pre-established platform API keys: id and sha-256 hex of the key. */
  platformKeys: ReadonlyArray<{ id: string; sha256: string }>;
  /** Keys issued at run time (the admin API), looked up by the SHA-256 of the presented value; revoked ones are not found. */
  findPlatformKey?: (sha256: string) => Promise<{ id: string } | null>;
  /** Every business profile URI (accepted `aud` values). */
  audiences(): readonly string[];
  /** Public origins the REST door is reachable at (for `htu`). */
  origins(): readonly string[];
  nonces: NonceSource;
  requireNonce: boolean;
  allowEs256: boolean;
  allowLoopbackProfiles: boolean;
  /** Resolve and check the platform profile (fetch, SSRF rules); absent in sandbox without fetching. */
  checkProfile?: (url: string) => Promise<PlatformSummary | void>;
  /** RFC 9421 verification at the HTTP layer; absent when signatures are not accepted. */
  verifySignature?: (http: HttpEvidence, profile: string) => Promise<VerifiedSignature>;
  /** Per-address, per-profile and per-key limits, applied by the pipeline once the caller is known. */
  rateLimiter?: RateLimiter;
  /** Clock of the rate limiter (monotonic ms): request rates are measured in real time, whatever the business clock says. */
  rateClock?: () => number;
  accepted: readonly string[];
  /**
   * Verify an OAuth access token from this business's authorization server (audience, expiry,
   * revocation, DPoP binding): null when it never issued the token (or it is gone), TokenRefused
   * when it is known but not good for this request. Absent when the server does not run one.
   */
  verifyAccessToken?: (token: string, how: AccessTokenCheck) => Promise<OAuthTokenInfo | null>;
  /** The RFC 9728 metadata URL of each door's resource, named in 401 challenges (when OAuth runs). */
  resourceMetadata?: (binding: 'mcp' | 'rest') => string;
}

export interface AccessTokenCheck {
  scheme: 'bearer' | 'dpop';
  binding: 'mcp' | 'rest';
  http?: HttpEvidence;
  now: number;
}

/** An AuthFailure; `logDetail` (the precise cause, for the log only) defaults to the public message. */
export const authFailure = (
  code: AuthFailureCode,
  detailCode: string,
  publicMessage: string,
  logDetail = publicMessage,
  extra?: Record<string, unknown>,
): AuthFailure => new AuthFailure(code, detailCode, publicMessage, logDetail, extra);
