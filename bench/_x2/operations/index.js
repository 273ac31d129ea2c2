export { OPERATIONS, operationByName } from './table.js';
export { Pipeline, silentLogger, parseInput, IDEMPOTENCY_RETENTION_MS } from './pipeline.js';
export { ProtocolError, PROTOCOL_ERROR_CODES } from './errors.js';
export { USP_VERSION, uspEnvelope } from './envelope.js';
export { compileBusiness, systemClock, ManualClock, randomIds, randomToken } from './runtime.js';
export { buildBusinessProfile } from './profile.js';
export { sweep } from './sweep.js';
export { syncCatalog } from './catalog-sync.js';
//# sourceMappingURL=index.js.map