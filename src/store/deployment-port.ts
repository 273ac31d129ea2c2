/**
 * The deployment's directory of the businesses it hosts (`usp-server host`): each business's id, the
 * host names that reach it (operator-assigned names and custom domains, lowercased, each naming one
 * business), whether it is served (active) or refused (suspended), and where its definition came
 * from. On SQLite a small file in the deployment's data folder (sqlite/deployment-directory.ts); on
 * PostgreSQL a schema of its own in the businesses' database (postgres/deployment-directory.ts), so
 * every process serving that database shares it.
 *
 * Reads answer at once (every request looks its Host up): from the file on SQLite, from a copy in
 * memory on PostgreSQL that follows the other processes' writes (LISTEN/NOTIFY). A write may be
 * asynchronous (`await` it): once it resolves, this process's reads show it.
 */

export type HostedStatus = 'active' | 'suspended';

export interface HostedBusiness {
  id: string;
  /** Host names (no port), lowercased; the first is the business's own origin. */
  hosts: string[];
  status: HostedStatus;
  /** Why the operator suspended it (said by its profile and tools while suspended). */
  reason?: string;
  /** Where the definition came from: a business file's absolute path, or `demo`. */
  origin: string;
  addedAt: number;
  /** Stripe Connect: the business's connected account (`acct_...`), none of another business's. */
  paymentAccount?: string;
}

export interface HostedRegistration {
  registry: string;
  registrationId: string;
  profileUrl: string;
}

/** A write's result, now (SQLite) or once the database answered (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/** A business as added: `definition` is its business file's JSON text at that moment (none for the demo). */
export type NewHostedBusiness = Omit<HostedBusiness, 'status'> & { definition?: string };

export interface DeploymentDirectory {
  /** A host name or id another business holds is a DirectoryClash. */
  add(b: NewHostedBusiness): Awaitable<void>;
  /**
   * The business file's JSON text as it was added, kept in the directory so that a process on another
   * machine (where the file's path means nothing) composes the business too. Read on demand, not kept
   * in memory (a definition is kilobytes; a deployment has thousands).
   */
  definitionOf(id: string): Awaitable<string | undefined>;
  list(): HostedBusiness[];
  get(id: string): HostedBusiness | undefined;
  /** The business a host name (no port, any case) reaches, if any. */
  byHost(host: string): HostedBusiness | undefined;
  /** False when no business has this id; a reason is kept only while suspended. */
  setStatus(id: string, status: HostedStatus, reason?: string): Awaitable<boolean>;
  /** Replace a business's host names (the first is its origin); a name another business holds is a DirectoryClash. */
  setHosts(id: string, hosts: string[]): Awaitable<void>;
  /**
   * Record (or, undefined, forget) a business's Stripe connected account: one no other business of the
   * deployment has (a DirectoryClash otherwise). False when no business has this id.
   */
  setPaymentAccount(id: string, account: string | undefined): Awaitable<boolean>;
  /** The business whose connected account this is, if any (the Connect webhook routes by it). */
  byPaymentAccount(account: string): HostedBusiness | undefined;
  /** The business leaves the deployment: its names are freed and its registrations forgotten. False when unknown. */
  remove(id: string): Awaitable<boolean>;
  /** A registry accepted the business's registration under this id (`host serve --register-with`). */
  recordRegistration(id: string, registry: string, registrationId: string, profileUrl: string): Awaitable<void>;
  /** The registrations recorded for a business, to remove them when it leaves. */
  registrationsOf(id: string): HostedRegistration[];
  /**
   * A custom domain the operator added to a business, pending until its DNS proves it is the
   * business's (it reaches nothing meanwhile): a name any business holds, or another's claim, is a
   * DirectoryClash; the business's own claim again answers the claim it has (its token kept).
   */
  claimDomain(id: string, name: string, token: string, at: number): Awaitable<DomainClaim>;
  /** A business's pending custom domains, oldest first. */
  domainClaimsOf(id: string): Awaitable<DomainClaim[]>;
  /** The claim verified: the domain becomes the business's last host name. False without such a claim. */
  confirmDomain(id: string, name: string): Awaitable<boolean>;
  /** When each business next has background work due: what `host serve`'s waker reads and claims. */
  readonly wake: WakeSchedule;
  /** Whether the directory can be read now (PostgreSQL: its copy follows the database; /readyz asks). */
  ready(): Awaitable<boolean>;
  close(): Awaitable<void>;
}

/**
 * Each business's `wake_at` (epoch ms; null: nothing queued): when a process that does not hold it
 * loaded must compose it so its workers run (src/server/hosted-waker.ts). A business added, or one
 * the directory had before it kept this, is due at once; one loaded is held ahead of now while it is,
 * so a process that dies holding it leaves it due soon after; one closed is due when its work is.
 */
export interface WakeSchedule {
  /** Record when these businesses are next due (null: nothing queued). */
  set(ids: readonly string[], at: number | null): Awaitable<void>;
  /**
   * Take up to `limit` businesses due by `now`, the longest due first, none of `except`: each is
   * moved to `leaseUntil` in the same statement, so another process (sharing a PostgreSQL
   * directory) does not take it too; a process that dies holding one leaves it due at that instant.
   */
  claimDue(now: number, limit: number, leaseUntil: number, except: readonly string[]): Promise<string[]>;
  /** When a business is next due (null: nothing queued; undefined: no such business). */
  at(id: string): Promise<number | null | undefined>;
}

/** A pending custom domain: the token its `_usp-verify` TXT record must hold. */
export interface DomainClaim {
  name: string;
  token: string;
  claimedAt: number;
}

/** A host name, business id or connected account the directory already holds: the operator picks another. */
export class DirectoryClash extends Error {}

/** A Stripe connected account id as Stripe gives it: `acct_` then letters and digits. */
export const PAYMENT_ACCOUNT = /^acct_[A-Za-z0-9]{1,64}$/;

/** The account checked before the directory keeps it: a malformed one is the caller's error, named. */
export function checkPaymentAccount(account: string | undefined): void {
  if (account !== undefined && !PAYMENT_ACCOUNT.test(account))
    throw new RangeError(`${JSON.stringify(account)} is not a connected account id (acct_ then letters and digits)`);
}
