export type {
  Store,
  Tx,
  ClaimRow,
  ClaimRepo,
  BookingRepo,
  HoldRepo,
  WaitlistRepo,
  WaitlistQuery,
  IdempotencyRecord,
  IdempotencyRepo,
  StoredService,
  CatalogRepo,
  SubscriptionRepo,
  OutboxEvent,
  OutboxRepo,
  KeyValueRepo,
  CredentialRow,
  SecurityRepo,
} from './port.js';
export { openSqliteStore } from './sqlite/sqlite-store.js';
export type { SqliteStoreOptions } from './sqlite/sqlite-store.js';
