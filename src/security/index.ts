export { hashApiKey, apiKeyMatches, ISSUED_KEY_PREFIX } from './api-key.js';
export { checkProfileUrl } from './profile-url.js';
export { AuthFailure, TokenRefused } from './auth-contract.js';
export { authenticateRequest, htuCandidates } from './authenticate.js';
export type {
  PlatformSummary,
  AuthPolicy,
  AuthRequest,
  AuthenticatedCaller,
  HttpEvidence,
  McpAuthorization,
  VerifiedSignature,
  OAuthTokenInfo,
  AccessTokenCheck,
} from './auth-contract.js';
export { issueCredential, credentialHash, base32 } from './credentials.js';
export { pooledRandomBytes } from './random-pool.js';
export type { IssuedCredential } from './credentials.js';
export { hmacNonces } from './nonces.js';
export type { NonceSource } from './nonces.js';
export { tokenBuckets, clientAddressKey, rateLimitFields } from './rate-limit.js';
export type { RateLimiter, RateQuota, TokenBucketOptions } from './rate-limit.js';
export {
  LOOPBACK_PROXIES,
  ProxyListError,
  clientAddress,
  clientLimitKey,
  peerAddress,
  plainAddress,
  trustedProxies,
  viaTrustedProxy,
} from './client-address.js';
export type { TrustedProxies } from './client-address.js';
export { verifyPopProof, popAlgorithms, PopFailure, POP_IAT_WINDOW_S, stripQuery } from './pop.js';
export type { PopAlgorithm } from './pop.js';
export { argumentsDigest, canonicalArguments } from './jcs.js';
export { contentDigest } from './content-digest.js';
export {
  generateSigningKey,
  jwkThumbprint,
  signRequest,
  uspRequiredComponents,
  verifyRequestSignature,
} from './http-signatures.js';
export { createProfileResolver, findKey, parseJsonDocument } from './platform-profiles.js';
export type { ProfileResolver, PlatformProfile } from './platform-profiles.js';
export { isLoopbackAddress, isReservedName, isSpecialUseAddress } from './ssrf.js';
export { outboundUrlProblem, isLoopbackHost, LOOPBACK_HOSTS } from './profile-url.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { OutboundRefused, outboundPostProblem, pinnedPost } from './pinned-post.js';
export type { PinnedPostAnswer, PinnedPostOptions } from './pinned-post.js';
export { AnswerTooLarge, pinnedRequest } from './pinned-request.js';
export type { PinnedAnswer, PinnedRequestOptions } from './pinned-request.js';
export { emailRef, loginBackoff, windowCounter } from './login-backoff.js';
export type {
  AccountDoor,
  AccountEvent,
  LockoutLimit,
  LoginBackoff,
  LoginBackoffOptions,
  PasswordResetStage,
  WindowCounter,
} from './login-backoff.js';
export { returnUrlProblem } from './return-url.js';
