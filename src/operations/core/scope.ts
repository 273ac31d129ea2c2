/**
 * What one call runs against besides its operation and input: the business it is for (or none, for
 * the registry role), that business's store, auth policy and outbound services. A door resolves the
 * scope for each request (`ScopeResolver`) and hands it to the pipeline with the call; nothing below
 * the doors holds a business of its own. A deployment of one business resolves every request to the
 * same scope; one that hosts many resolves by the request's host.
 */
import type { Store } from '../../store/index.js';
import type { AuthPolicy } from '../../security/index.js';
import type { Business } from '../business.js';
import type { EventChannels } from './channels.js';
import type { OperationEnv } from './context.js';
import type { PublicOrigin } from '../public-origin.js';

/** The business a scope serves: its latest snapshot, and a way to bring it up to the stored definition. */
export interface BusinessSource {
  /** The latest compiled business, frozen: a call takes it once and keeps it to its end. */
  current(): Business;
  /** Take up the stored definition if it moved (one cheap statement when it did not). */
  refresh(): Promise<void>;
}

/** What every call of a role needs, business or registry. */
export interface CallScope {
  readonly store: Store;
  readonly authPolicy: AuthPolicy;
  /** The role's outbound services (the business's admin services; the registry's fetcher). */
  readonly env: OperationEnv;
  /** Names a principal's webhook resource under this scope's key (./webhook-resource.ts). */
  webhookResourceUri(principal: string): string;
  /**
   * What leaves the process when a write commits (./channels.ts): each module's in-transaction
   * writer and after-commit nudge, registered at composition; the pipeline and the sweeper name none.
   */
  readonly channels: EventChannels;
  /** The business served; absent for the registry role, which has none. */
  readonly business?: BusinessSource;
  /** Where the business is reached (absent for the registry role). */
  readonly origin?: PublicOrigin;
  /** Whether this deployment sends the business's buyer mail (a transport is configured). */
  readonly mailSent?: boolean;
}

/** A scope that serves a business. */
export interface BusinessScope extends CallScope {
  readonly business: BusinessSource;
  readonly origin: PublicOrigin;
  readonly mailSent: boolean;
}

/** The scope of a request; a deployment of one business answers the same one for every request. */
export type ScopeResolver<S extends CallScope = CallScope> = (req: Request) => S;

/** The resolver of a deployment that serves one scope. */
export function singleScope<S extends CallScope>(scope: S): ScopeResolver<S> {
  return () => scope;
}
