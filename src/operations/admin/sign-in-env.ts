/**
 * What the dashboard's sign-in row needs beyond the store, made once per server by the composition
 * root: whether the admin key signs in (a sandbox), the admin keys' hashes, the growing backoff
 * per address (any user: 10 free failures) and per user as seen from one address (3 free), each 1 s,
 * 2 s, 4 s ... at most 15 minutes, in memory per process like the rate limits, and where the
 * failures and refusals are logged and counted (`AccountEvent`, on /metrics).
 */
import type { Logger } from '../core/logger.js';
import { loginBackoff, type AccountEvent, type LoginBackoff } from '../../security/index.js';

export interface DashboardSignInEnv {
  /** The admin key is accepted in place of an account (sandbox only). */
  adminKeyLogin: boolean;
  adminKeyHashes: readonly string[];
  byAddress: LoginBackoff;
  byUser: LoginBackoff;
  log?: Logger;
  onEvent?: (e: AccountEvent) => void;
}

export function dashboardSignInEnv(args: {
  sandbox: boolean;
  adminKeyHashes: readonly string[];
  log?: Logger;
  onEvent?: (e: AccountEvent) => void;
}): DashboardSignInEnv {
  return {
    adminKeyLogin: args.sandbox,
    adminKeyHashes: args.adminKeyHashes,
    byAddress: loginBackoff({ free: 10 }),
    byUser: loginBackoff({ free: 3 }),
    log: args.log,
    onEvent: args.onEvent,
  };
}
