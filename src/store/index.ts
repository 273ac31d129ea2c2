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
  WebhookRepo,
  WebhookDelivery,
  DeliveryAttempt,
  DeliveryStatus,
  EventChannel,
} from './port.js';
export type { RegistryRepo, RegistryBusinessRow, RegistryServiceRow, RegistryFilter, RegistryServiceHit, DeploymentMode } from './registry-port.js';
export { openSqliteStore } from './sqlite/sqlite-store.js';
export { eventBody } from './port.js';
export type { SqliteStoreOptions } from './sqlite/sqlite-store.js';

import type { Store as StoreT } from './port.js';
import { openSqliteStore as openSqlite } from './sqlite/sqlite-store.js';

/** Pick the engine from the location: a postgres:// URL selects PostgreSQL, anything else is a SQLite path. */
export async function openStore(location: string): Promise<StoreT> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    return openPostgresStore({ url: location });
  }
  return openSqlite({ path: location });
}
