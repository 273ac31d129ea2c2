/**
 * The flag table every command parses and the shape of a command: this file imports nothing of the
 * server, so that `usp-server --help` and a command's parse errors answer without loading it.
 */
import type { parseArgs } from 'node:util';

/** Every flag of every command, in one table (parseArgs reads it; each command's help lists its own). */
export const OPTIONS = {
  demo: { type: 'boolean' },
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  'pg-keyed': { type: 'boolean' },
  'db-connect-timeout': { type: 'string' },
  'db-statement-timeout': { type: 'string' },
  sandbox: { type: 'boolean' },
  'require-auth': { type: 'boolean' },
  'admin-key': { type: 'string', multiple: true },
  'operator-host': { type: 'string' },
  'operator-key': { type: 'string', multiple: true },
  'operator-key-hash': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'event-retention-days': { type: 'string' },
  'retention-days': { type: 'string' },
  'availability-cache-mb': { type: 'string' },
  'calendar-poll-seconds': { type: 'string' },
  'calendar-max-events': { type: 'string' },
  'calendar-stale-hours': { type: 'string' },
  'no-availability-cache': { type: 'boolean' },
  'hold-ttl': { type: 'string' },
  'payment-ttl': { type: 'string' },
  'payment-due-before-start': { type: 'string' },
  'payment-min-window': { type: 'string' },
  'manual-confirmation-ttl': { type: 'string' },
  'waitlist-offer-ttl': { type: 'string' },
  'max-query-days': { type: 'string' },
  'max-holds': { type: 'string' },
  'max-waitlist': { type: 'string' },
  'public-url': { type: 'string' },
  identity: { type: 'string' },
  'poll-seconds': { type: 'string' },
  registry: { type: 'string' },
  'checkout-url': { type: 'string' },
  payments: { type: 'string' },
  'smtp-url': { type: 'string' },
  'mail-from': { type: 'string' },
  'mail-dir': { type: 'string' },
  'mail-templates-dir': { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  reason: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'allow-loopback-profiles': { type: 'boolean' },
  'require-pop-nonce': { type: 'boolean' },
  'allow-es256': { type: 'boolean' },
  'profile-uri': { type: 'string', multiple: true },
  'platform-profile': { type: 'string' },
  'profile-allowlist': { type: 'string', multiple: true },
  'no-rate-limit': { type: 'boolean' },
  'rate-limit': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  'cors-origin': { type: 'string', multiple: true },
  'key-overlap': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'mcp-max-sessions': { type: 'string' },
  'mcp-max-sessions-per-address': { type: 'string' },
  'mcp-unused-session-timeout': { type: 'string' },
  outcome: { type: 'string' },
  refund: { type: 'string' },
  'webhook-retry-first': { type: 'string' },
  'webhook-max-retries': { type: 'string' },
  'webhook-max-total': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'signing-key': { type: 'string' },
  'oauth-unused-client-hours': { type: 'string' },
  'signing-kid': { type: 'string' },
  'reminder-offset': { type: 'string' },
  failed: { type: 'boolean' },
  'reindex-interval': { type: 'string' },
  'max-failures': { type: 'string' },
  'register-with': { type: 'string', multiple: true },
  'register-interval': { type: 'string' },
  'directory-scan': { type: 'string' },
  export: { type: 'string' },
  stdio: { type: 'boolean' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  spec: { type: 'string' },
  json: { type: 'boolean' },
  'allow-writes': { type: 'boolean' },
  'check-registry': { type: 'boolean' },
  'race-width': { type: 'string' },
  timeout: { type: 'string' },
  only: { type: 'string', multiple: true },
  origin: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'dry-run': { type: 'boolean' },
  reimport: { type: 'boolean' },
  name: { type: 'string' },
  timezone: { type: 'string' },
  currency: { type: 'string' },
  service: { type: 'string' },
  price: { type: 'string' },
  minutes: { type: 'string' },
  staff: { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  none: { type: 'boolean' },
  data: { type: 'string' },
  'max-loaded': { type: 'string' },
  'idle-close': { type: 'string' },
  'wake-interval': { type: 'string' },
  'wake-concurrency': { type: 'string' },
  'public-scheme': { type: 'string' },
  'public-port': { type: 'string' },
} as const;

export type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** A command used wrongly: printed with a pointer to its help, exit status 2. */
export class UsageError extends Error {}

/** A command that ran and failed (an unknown id, a refused transition): exit status 1. */
export class CommandError extends Error {}

/** One subcommand: its help text sits beside its code (its name and one-line summary are in ./commands.ts). */
export interface Command {
  name: string;
  /** The text `usp-server NAME --help` prints. */
  help: string;
  /** Resolves with the exit status, or -1 to keep the process running (a server). */
  run(flags: Flags, args: string[]): Promise<number>;
}

/**
 * The flag table with each payment provider adapter's own flags (src/payments/adapters.ts): read
 * when a command runs, which loads the server anyway; `usp-server --help` alone never loads them.
 */
export async function optionsWithAdapters(): Promise<typeof OPTIONS> {
  const { paymentFlagTable } = await import('../../payments/index.js');
  // Typed as the core table: the adapters' flags are strings each adapter reads by its own names.
  return { ...OPTIONS, ...paymentFlagTable() } as typeof OPTIONS;
}
