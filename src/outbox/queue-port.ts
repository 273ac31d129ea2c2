/**
 * What a leased queue is to the runner (runner.ts): its rows, its port (how rows are leased,
 * attempted and finished), the ends of attempts, and the rows leased in a caller's transaction.
 */
import type { Tx } from '../store/index.js';

/** What the runner reads of every leased row. */
export interface LeasedRow {
  /** Attempts made before this one. */
  attempts: number;
}

/** How an attempt that threw reads: whether trying again can help, and its text for the row and the log. */
export interface Failure {
  permanent: boolean;
  error: string;
}

/** An attempt's end as the port records it. */
export interface Finished {
  /** Attempts made, this one included. */
  attempts: number;
  /** When the attempt began. */
  startedMs: number;
  now: number;
}

export interface Failed extends Finished {
  /** Permanent, or the queue's schedule gave up: the row is not tried again. */
  giveUp: boolean;
  /** When the row is due again (when not given up). */
  retryAtMs: number;
  error: string;
  /** What threw (a port may keep a fact of it on the row: a provider's retry key, an HTTP status). */
  cause: unknown;
}

/** The common schedule: the next attempt after `delayMs(attempts)`, given up once the row is older than `giveUpMs`. */
export function backoff<J extends LeasedRow & { created_ms: number }>(
  delayMs: (attempts: number) => number,
  giveUpMs: number,
) {
  return (job: J, end: Finished): number | null =>
    end.now - job.created_ms > giveUpMs ? null : end.now + delayMs(end.attempts);
}

/** One queue as the runner drives it. */
export interface QueuePort<J extends LeasedRow, R = unknown> {
  /** The runner's name in log lines ("mail worker", "payment worker"). */
  readonly name: string;
  /** What a log line calls one row ("mail", "payment job"). */
  readonly noun: string;
  /** A row's lease (a leased row returns to the queue after this long). */
  readonly leaseMs: number;
  /** Most rows leased per pass. */
  readonly batch: number;
  /** Most rows attempted at once. */
  readonly concurrency: number;
  /** When a failed row is due again (growing with `attempts`), or null to fail it for good. */
  retryAt(job: J, end: Finished): number | null;
  /** What a log line about a row says (its key and kind; never a recipient or contents). */
  describe(job: J): Record<string, unknown>;
  /** Before each pass (calendar pushes: plan what is due); false: nothing to lease this pass. */
  beforePass?(): Promise<boolean | undefined>;
  /**
   * Lanes only: work done in the claim's own transaction, before the claim sees the rows (webhooks:
   * expand due events into deliveries, so that a pass is one transaction, not two). `after` runs
   * once it committed; `more` says work was left for another pass. `standalone` does the same
   * work in a transaction of its own, for a pass that has no room to claim.
   */
  readonly withClaim?: {
    run(tx: Tx, now: number): Promise<ClaimExtra>;
    standalone(): Promise<void>;
  };
  /**
   * Rows of one lane never run side by side (webhooks: one target, so its events arrive in order).
   * With lanes, `claim` is told the lanes in flight, and a pass does not wait for its attempts.
   */
  lane?(job: J): string;
  /**
   * Lease up to `limit` due rows until `leaseUntilMs` (none of the `busy` lanes). With lanes, the
   * rows may say `leftBehind: false` when no due row was left (a lane freed then needs no new pass).
   */
  claim(
    tx: Tx,
    now: number,
    limit: number,
    leaseUntilMs: number,
    busy: readonly string[],
  ): Promise<J[] & { leftBehind?: boolean }>;
  /** Do the row's work (send the message, call the provider); throws when it failed. */
  attempt(job: J): Promise<R>;
  failure(err: unknown, job: J): Failure;
  /** Record a successful attempt (clears the lease). */
  done(tx: Tx, job: J, result: R, end: Finished): Promise<void>;
  /** Record a failed attempt: queued again at `retryAtMs`, or failed for good (clears the lease). */
  failed(tx: Tx, job: J, end: Failed): Promise<void>;
  /** Clear the leases of rows a stop cut short (lanes only; unset, they lapse by themselves). */
  release?(tx: Tx, jobs: readonly J[]): Promise<void>;
  /** Told each attempt's end once it is recorded (metrics). */
  recorded?(job: J, end: { result: R } | { failed: Failed }): void;
  /** Logged (info) after a successful attempt, when set ("mail sent"). */
  readonly doneMessage?: string;
  /** Release what the port holds (a transport's connections) once the runner stopped. */
  close?(): Promise<void>;
}

/** What a queue's `withClaim` work leaves for after the claim commits. */
export interface ClaimExtra {
  after?: () => Promise<void>;
  more?: boolean;
}

/** Rows leased in a caller's transaction (`claimWithin`), started once it commits. */
export interface Handoff<J> {
  readonly due: J[] & { leftBehind?: boolean };
  readonly extra: ClaimExtra | undefined;
  /** The room the claim had (a full claim leaves rows waiting). */
  readonly room: number;
  /** When it was leased, on the process's clock: one never settled stops counting after a lease. */
  readonly leasedAt: number;
  /**
   * Rows leased by a statement answered with COMMIT (`claimAtCommit`): the rows and the work for after
   * the commit, once it answered. Until then `due` holds the rows as they will be (their lanes).
   */
  readonly settled?: Promise<AtCommit<J>>;
}

/** What a claim answered with COMMIT leased, and what is left for after it. */
export interface AtCommit<J> {
  due: J[] & { leftBehind?: boolean };
  extra?: ClaimExtra;
}
