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
  StoreGauges,
} from './port.js';
export type {
  AdminRepo,
  AdminSessionRow,
  AuditRow,
  BusinessUserRow,
  PlatformKeyRow,
  ScheduleChangeRow,
} from './admin-port.js';
export type {
  RegistryRepo,
  RegistryBusinessRow,
  RegistryServiceRow,
  RegistryFilter,
  RegistryServiceHit,
  DeploymentMode,
} from './registry-port.js';
export type { OAuthRecord, OAuthRepo, BuyerAccount, AccountRepo } from './oauth-port.js';
export type { DefinitionEntry, DefinitionKind, DefinitionRepo } from './definition-port.js';
export { DefinitionChanged } from './definition-port.js';
export type { ClientNoteRow, FrontDeskRepo, PersonalTextRow } from './frontdesk-port.js';
export type { PaymentJob, PaymentJobKind, PaymentJobStatus, PaymentRepo } from './payment-port.js';
export type { MailMessage, MailRepo, MailStatus } from './mail-port.js';
export { EMAIL_CHANNEL, accountMailSubject } from './mail-port.js';
export { CALENDAR_SLOT_KEY } from './calendar-port.js';
export type { BusyInterval, CalendarFeedState, CalendarPushJob, CalendarRepo, PushedEvent } from './calendar-port.js';
export { openSqliteStore } from './sqlite/sqlite-store.js';
export { eventBody, StoreUnavailable } from './port.js';
export type { DueTimes } from './shared/due.js';
export type { SqliteStoreOptions } from './sqlite/sqlite-store.js';
export {
  checkPaymentAccount,
  DirectoryClash,
  PAYMENT_ACCOUNT,
  type DeploymentDirectory,
  type WakeSchedule,
  type DomainClaim,
  type HostedBusiness,
  type HostedRegistration,
  type HostedStatus,
  type NewHostedBusiness,
} from './deployment-port.js';
export { openDeploymentDirectory, type SqliteDeploymentDirectory } from './sqlite/deployment-directory.js';
export type { PgDirectoryOptions } from './postgres/deployment-directory.js';

import type { Store as StoreT } from './port.js';
import type { DeploymentDirectory as DirectoryT } from './deployment-port.js';
import type { PgDirectoryOptions as PgDirectoryOptionsT } from './postgres/deployment-directory.js';
import { openSqliteStore as openSqlite } from './sqlite/sqlite-store.js';
import { openDeploymentDirectory as openFileDirectory } from './sqlite/deployment-directory.js';

/** Bounds on waiting for the database, so that an outage answers quickly instead of hanging calls. */
export interface StoreTimeouts {
  /** PostgreSQL: give up opening a connection after this long (default 5000 ms). */
  connectTimeoutMs?: number;
  /** PostgreSQL: statement_timeout; SQLite: how long to wait for another process's write lock (default 5000 ms). */
  statementTimeoutMs?: number;
  /** PostgreSQL: most connections this store holds (default 10; a deployment hosting many businesses keeps it small). */
  poolSize?: number;
}

/**
 * Pick the engine from the location: a postgres:// URL selects PostgreSQL, anything else is a SQLite path.
 * `onStatement` (tests and benchmarks only; nothing is wrapped without it) is told every statement the
 * store sends: on SQLite each statement executed, on PostgreSQL each query sent (one round trip each).
 */
export async function openStore(
  location: string,
  timeouts: StoreTimeouts = {},
  onConnectionError?: (err: Error) => void,
  onStatement?: (sql: string) => void,
): Promise<StoreT> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    return openPostgresStore({
      url: location,
      connectTimeoutMs: timeouts.connectTimeoutMs,
      statementTimeoutMs: timeouts.statementTimeoutMs,
      poolSize: timeouts.poolSize,
      onError: onConnectionError,
      onStatement,
    });
  }
  return openSqlite({ path: location, busyTimeoutMs: timeouts.statementTimeoutMs, onStatement });
}

/** Delete one business's rows from a PostgreSQL schema keyed by business (hosting's `--pg-keyed`; see business-keyed.ts). */
export async function deleteKeyedBusiness(
  client: import('pg').ClientBase,
  schema: string,
  businessId: string,
): Promise<number> {
  const { deleteBusinessRows } = await import('./postgres/business-keyed.js');
  return deleteBusinessRows(client, schema, businessId);
}

/**
 * The deployment's directory where its businesses live: on PostgreSQL (a postgres:// URL) a schema of
 * its own in that database, shared by every process serving it; otherwise the SQLite file at `path`.
 */
export async function openDeploymentDirectoryAt(
  location: { db?: string; path: string },
  pgOptions: Omit<PgDirectoryOptionsT, 'url'> = {},
): Promise<DirectoryT> {
  if (location.db && /^postgres(ql)?:\/\//.test(location.db)) {
    const { openPgDeploymentDirectory } = await import('./postgres/deployment-directory.js');
    return openPgDeploymentDirectory({ ...pgOptions, url: location.db });
  }
  return openFileDirectory(location.path);
}
