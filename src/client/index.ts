/** What a platform does to authenticate to a USP business (see platform-auth.ts). */
export { createPopKey, createSigningIdentity, dpopHeaders, dpopProof, mcpProof, signedHeaders, withMcpProof } from './platform-auth.js';
export type { PopKey, ProofOptions, SigningIdentity } from './platform-auth.js';
