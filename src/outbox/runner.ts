/**
 * The one runner of every leased queue (the notification outbox, the payment jobs): on the shared
 * BackgroundLoop it leases the due rows in one transaction (another process, or this one after a
 * crash, takes a row over once its lease lapses), attempts each with bounded concurrency, and
 * records the end in a transaction of its own: done, queued again after a growing delay, or failed
 * for good (a permanent refusal, or the queue's give-up age reached). What a row is, how it is
 * leased, attempted and finished is the queue's port (`QueuePort`); the runner knows none of them.
 */
import type { Store, Tx } from '../store/index.js';
import { BackgroundLoop, type LoopLog } from './loop.js';

/** What the runner reads of every leased row. */
export interface LeasedRow {
  id: string;
  /** Attempts made before this one. */
  attempts: number;
  created_ms: number;
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
  now: number;
}

export interface Failed extends Finished {
  /** Permanent, or past the give-up age: the row is not tried again. */
  giveUp: boolean;
  /** When the row is due again (when not given up). */
  retryAtMs: number;
  error: string;
  /** What threw (a port may keep a fact of it on the row: a provider's retry key). */
  cause: unknown;
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
  /** Past this age (from `created_ms`) a failing row is failed for good. */
  readonly giveUpMs: number;
  /** The delay before attempt n+1. */
  retryDelayMs(attempts: number): number;
  /** What a log line about a row says (its key and kind; never a recipient or contents). */
  describe(job: J): Record<string, unknown>;
  /** Lease up to `limit` due rows until `leaseUntilMs`. */
  claim(tx: Tx, now: number, limit: number, leaseUntilMs: number): Promise<J[]>;
  /** Do the row's work (send the message, call the provider); throws when it failed. */
  attempt(job: J): Promise<R>;
  failure(err: unknown, job: J): Failure;
  /** Record a successful attempt (clears the lease). */
  done(tx: Tx, job: J, result: R, end: Finished): Promise<void>;
  /** Record a failed attempt: queued again at `retryAtMs`, or failed for good (clears the lease). */
  failed(tx: Tx, job: J, end: Failed): Promise<void>;
  /** Logged (info) after a successful attempt, when set ("mail sent"). */
  readonly doneMessage?: string;
  /** Release what the port holds (a transport's connections) once the runner stopped. */
  close?(): Promise<void>;
}

export interface RunnerOptions {
  store: Store;
  now: () => number;
  log: LoopLog;
  /** Poll interval when idle (default 1 s); nudges come sooner. */
  pollMs?: number;
}

export class LeasedRunner<J extends LeasedRow, R = unknown> {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly port: QueuePort<J, R>,
    private readonly o: RunnerOptions,
  ) {
    this.loop = new BackgroundLoop({ name: port.name, pass: () => this.tick(), log: o.log, pollMs: o.pollMs });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.port.close?.();
  }

  /** Something was committed: look soon. */
  nudge(): void {
    this.loop.nudge();
  }

  /** One pass over the due rows; resolves when each is done or put back (tests call it directly). */
  async tick(): Promise<void> {
    const p = this.port;
    const now = this.o.now();
    const due = await this.o.store.transaction((tx) => p.claim(tx, now, p.batch, now + p.leaseMs));
    let next = 0;
    const lane = async () => {
      while (next < due.length) await this.run(due[next++]);
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(p.concurrency, due.length)) }, lane));
  }

  private async run(job: J): Promise<void> {
    const p = this.port;
    const attempts = job.attempts + 1;
    let result: R;
    try {
      result = await p.attempt(job);
    } catch (err) {
      const now = this.o.now();
      const { permanent, error } = p.failure(err, job);
      const giveUp = permanent || now - job.created_ms > p.giveUpMs;
      this.o.log.warn(giveUp ? `${p.noun} failed for good` : `${p.noun} failed; it will be retried`, { ...p.describe(job), attempts, error });
      await this.o.store.transaction((tx) => p.failed(tx, job, { attempts, now, giveUp, retryAtMs: now + p.retryDelayMs(attempts), error, cause: err }));
      return;
    }
    const now = this.o.now();
    await this.o.store.transaction((tx) => p.done(tx, job, result, { attempts, now }));
    if (p.doneMessage) this.o.log.info(p.doneMessage, p.describe(job));
  }
}
