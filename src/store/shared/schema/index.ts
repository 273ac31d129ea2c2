/** The schema, written once for both engines; each engine's migration list renders it with its types. */
export {
  IDEMPOTENCY_EXPIRY_INDEX,
  KV_TABLE,
  PROOF_JTI_EXPIRY_INDEX,
  adminTables,
  bookingsTable,
  catalogTables,
  claimSpanTable,
  claimsTable,
  definitionTables,
  holdsTable,
  idempotencyTable,
  resourceVersionsTable,
  securityTables,
  waitlistTable,
} from './booking-tables.js';
export { webhookTables } from './delivery-tables.js';
export {
  NOTIFICATION_CHANNEL_MIGRATION,
  calendarTables,
  mailTables,
  oauthTables,
  paymentTables,
} from './feature-tables.js';
export { registryBusinessesTable, registryServicesTable, registryTermsTable } from './registry-tables.js';
export { POSTGRES_TYPES, SQLITE_TYPES, type IfNew, type SqlTypes } from './types.js';
