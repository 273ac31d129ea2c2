/**
 * The platform side of USP (`usp-server/client`): discovery and negotiation, the platform's
 * identity, every business operation on REST or MCP behind one call, webhooks verified, and errors
 * as values. The lower parts (proofs, raw transports) are exported too: the conformance suite
 * speaks the wire through them.
 */
export {
  createPopKey,
  createSigningIdentity,
  dpopHeaders,
  dpopProof,
  mcpProof,
  signedHeaders,
  withMcpProof,
} from './platform-auth.js';
export type { PopKey, ProofOptions, SigningIdentity } from './platform-auth.js';
export { BusinessClient, describeError, memoryCredentials } from './client.js';
export { perRequestAbortFetch } from './per-request-abort.js';
export type { CallOptions, ClientOptions, CredentialStore, StoredCredential, UspAnswer } from './client.js';
export {
  ProfileCache,
  bindingsOf,
  capabilitiesOf,
  checkProfile,
  freshnessOf,
  negotiate,
  profileUrlOf,
} from './discovery.js';
export type {
  BusinessProfile,
  CachedProfile,
  CapabilityEntry,
  Negotiated,
  ProfileCacheOptions,
  ServiceBinding,
} from './discovery.js';
export { UspError, fromMessages, fromProblem, fromRpcError, outcomeNextStep, protocolNextStep } from './errors.js';
export type { ErrorKind, NextStep, Severity } from './errors.js';
export { CLIENT_USP_VERSION, DEFAULT_CAPABILITIES, PlatformIdentity, writePlatformFiles } from './identity.js';
export type { PlatformIdentityOptions, SavedIdentity } from './identity.js';
export { CLIENT_OPERATIONS } from './operations.js';
export type { ClientOperation, OperationName } from './operations.js';
export { PROFILE_PATH, WEBHOOK_PATH, servePlatform } from './server.js';
export type { PlatformServer } from './server.js';
export { WebhookReceiver, isBookingEvent, isCatalogEvent, isWaitlistEvent, memorySeenEvents } from './webhooks.js';
export type {
  BookingEvent,
  CatalogEvent,
  WaitlistEvent,
  SeenEvents,
  WebhookAnswer,
  WebhookContext,
  WebhookEvent,
  WebhookReceiverOptions,
  WebhookRequest,
} from './webhooks.js';
export { RestClient, describeAnswer, messageCodes } from './rest-transport.js';
export type { Authenticate, RestAnswer, RestRequest } from './rest-transport.js';
export { connectHttpMcp, connectStdioMcp } from './mcp-transport.js';
export type { McpClient, RpcAnswer, RpcError } from './mcp-transport.js';
export { pinnedFetch } from './pinned-fetch.js';
export type { PinnedFetchOptions } from './pinned-fetch.js';
export { EVENTS_URI, slugOf, startConnect } from './connect.js';
export type { ConnectOptions, RunningConnect } from './connect.js';
export type {
  Booking,
  Hold,
  IssuedCredential,
  Message,
  OperationResults,
  Service,
  TimeSlot,
  WaitlistEntry,
} from './types.js';
