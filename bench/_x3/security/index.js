export { hashApiKey, apiKeyMatches } from './api-key.js';
export { checkProfileUrl } from './profile-url.js';
export { AuthFailure, authenticateRequest, htuCandidates } from './authenticate.js';
export { issueCredential, credentialHash } from './credentials.js';
export { hmacNonces } from './nonces.js';
export { tokenBuckets } from './rate-limit.js';
export { verifyPopProof, PopFailure, POP_IAT_WINDOW_S } from './pop.js';
export { argumentsDigest, canonicalArguments } from './jcs.js';
//# sourceMappingURL=index.js.map