/**
 * The one runner of every leased queue (the notification outbox, the payment jobs, the webhook
 * deliveries, the calendar pushes): on the shared BackgroundLoop it leases the due rows in one
 * transaction (another process, or this one after a crash, takes a row over once its lease lapses),
 * attempts each with bounded concurrency, and records the end in a transaction of its own: done,
 * queued again after a growing delay, or failed for good (a permanent refusal, or the queue's
 * schedule gives up). What a row is, how it is leased, attempted and finished is the queue's port
 * (`QueuePort`); the runner knows none of them.
 *
 * A queue whose rows have lanes (webhooks: one target each) keeps at most one row per lane in flight
 * and does not wait for its attempts before the next pass, so one slow lane never holds up another;
 * a stop gives them a moment and releases the leases of those it cut short.
 */
import { StoreUnavailable, type Store, type Tx } from '../store/index.js';
import { BackgroundLoop, type LoopLog } from './loop.js';
import type { AtCommit, ClaimExtra, Failed, Finished, Handoff, LeasedRow, QueuePort } from './queue-port.js';

export { backoff } from './queue-port.js';
export type { AtCommit, ClaimExtra, Failed, Failure, Finished, Handoff, LeasedRow, QueuePort } from './queue-port.js';

export interface RunnerOptions {
  store: Store;
  now: () => number;
  log: LoopLog;
  /** Poll interval when idle (default 1 s); nudges come sooner. */
  pollMs?: number;
  /** How long a nudge waits, so that one pass serves a burst of commits (default 5 ms). */
  debounceMs?: number;
}

/**
 * The runner of one queue. Its port and its loop are built on first use: when it is started with a
 * poll, else on its first nudge (or pass). A business hosted under a work hub (`pollMs` 0) starts its
 * runners with nothing due; until the hub finds work for one, that one holds its options and a flag
 * only (the port's closures, the loop and the lanes' tables were about 2 KB per worker per business).
 */
export class LeasedRunner<J extends LeasedRow, R = unknown> {
  private portBuilt: QueuePort<J, R> | undefined;
  private loopBuilt: BackgroundLoop | undefined;
  private running = false;
  /** Lanes only: the attempts under way, and the rows leased and not yet recorded (a stop releases them). */
  private inFlight: Map<J, Promise<void>> | undefined;
  private leased: Set<J> | undefined;
  /** Lanes only: rows leased in transactions not yet committed (claimWithin); they count as held. */
  private pending: Set<Handoff<J>> | undefined;
  /** Lanes only: the claim under way, if any (a stop waits for it). */
  private claiming: Promise<unknown> | undefined;
  /** Lanes only: the latest claim left a due row behind (a lane freed then needs a pass). */
  private rowsWaiting = true;

  private readonly makePort: () => QueuePort<J, R>;

  /** `port`: the queue's port, or how to build it (on first use). */
  constructor(
    port: QueuePort<J, R> | (() => QueuePort<J, R>),
    private readonly o: RunnerOptions,
  ) {
    this.makePort = typeof port === 'function' ? port : () => port;
  }

  /** The queue's port, built on first use. */
  private get port(): QueuePort<J, R> {
    return (this.portBuilt ??= this.makePort());
  }

  /** The loop, built on first use (started if the runner is: a pass now when it polls). */
  private get loop(): BackgroundLoop {
    return this.loopBuilt ?? this.buildLoop();
  }

  private buildLoop(): BackgroundLoop {
    const loop = new BackgroundLoop({
      name: this.port.name,
      pass: async () => void (await this.tick()),
      log: this.o.log,
      pollMs: this.o.pollMs,
      debounceMs: this.o.debounceMs,
      onIdle: () => this.letGo(),
    });
    this.loopBuilt = loop;
    if (this.running) loop.start();
    return loop;
  }

  /**
   * A runner that never polls (hosted under a work hub) lets go of its port, loop and lanes' tables
   * once a pass ends with nothing claimed, leased or in flight; the next nudge builds them again (a
   * few microseconds, against a pass's transaction). An idle hosted business keeps none of them.
   */
  private letGo(): void {
    if (!this.running || this.o.pollMs !== 0 || this.loopBuilt?.quiet === false) return;
    if (this.claiming || (this.inFlight?.size ?? 0) > 0 || (this.leased?.size ?? 0) > 0) return;
    if ((this.pending?.size ?? 0) > 0) return;
    this.loopBuilt = undefined;
    this.portBuilt = undefined;
    this.inFlight = undefined;
    this.leased = undefined;
    this.pending = undefined;
    this.rowsWaiting = true;
  }

  /** Whether its port or loop is built now (tests: an idle hosted business holds none). */
  get built(): boolean {
    return this.portBuilt !== undefined || this.loopBuilt !== undefined;
  }

  start(): void {
    this.running = true;
    if (this.loopBuilt) this.loopBuilt.start();
    // A loop that never polls runs no pass at start (loop.ts): it is built when first nudged.
    else if (this.o.pollMs !== 0) this.buildLoop();
  }

  /**
   * Stop polling; a pass under way ends first. Attempts of a queue with lanes get `graceMs` to finish;
   * the leases of any cut short are released, so another process (or the next run) takes them at once.
   */
  async stop(graceMs = 1000): Promise<void> {
    this.running = false;
    await this.loopBuilt?.stop();
    // Built now if it never was (nothing claimed or in flight then): its close still runs.
    const port = this.port;
    await this.claiming?.catch(() => undefined);
    const inFlight = this.inFlight;
    if (inFlight && inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight.values()]),
        new Promise((r) => (timer = setTimeout(r, graceMs))),
      ]);
      clearTimeout(timer);
    }
    const release = port.release;
    if (this.leased && this.leased.size > 0 && release) {
      const jobs = [...this.leased];
      await this.o.store
        .transaction((tx) => release(tx, jobs))
        .catch((err) =>
          this.o.log.warn(`could not release ${port.noun} leases; they lapse by themselves`, {
            rows: jobs.length,
            error: String(err),
          }),
        );
    }
    await port.close?.();
  }

  /** Something was committed: look soon. */
  nudge(): void {
    if (this.running) this.loop.nudge();
  }

  /** Started and not stopped. */
  get isRunning(): boolean {
    return this.running;
  }

  /** True while the database is unavailable (the runner retries every poll). */
  get isPaused(): boolean {
    return this.loopBuilt?.isPaused ?? false;
  }

  /**
   * One pass over the due rows (tests call it directly). Resolves when each is done or put back, and
   * says how many were done; with lanes, once the rows are launched (a stopped runner launches none),
   * saying how many were (`idle()` waits for them).
   */
  async tick(): Promise<number> {
    const p = this.port;
    if (p.beforePass && (await p.beforePass()) === false) return 0;
    if (p.lane) return this.launch(p.lane);
    const now = this.o.now();
    const due = await this.o.store.transaction((tx) => p.claim(tx, now, p.batch, now + p.leaseMs, []));
    let next = 0;
    let done = 0;
    const lane = async () => {
      while (next < due.length) if (await this.run(due[next++])) done++;
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(p.concurrency, due.length)) }, lane));
    return done;
  }

  /** Wait until no attempt is in flight (lanes; tests). */
  async idle(): Promise<void> {
    while (this.inFlight && this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Lanes only: lease in `tx`, a write transaction of the caller's (the booking that raised the events),
   * what a pass would lease now, after the port's `withClaim` work, so that those rows need no claim
   * transaction of their own. `committed` starts them once `tx` committed; `abandoned` forgets them when
   * it did not (their leases were rolled back with it). Undefined when stopped or without room: the
   * caller nudges instead, as before.
   */
  async claimWithin(tx: Tx): Promise<Handoff<J> | undefined> {
    const p = this.port;
    if (!p.lane || !this.running) return undefined;
    const room = this.room();
    if (room <= 0) return undefined;
    const now = this.o.now();
    const extra = p.withClaim ? await p.withClaim.run(tx, now) : undefined;
    const due = await p.claim(tx, now, room, now + p.leaseMs, this.busyLanes(p.lane));
    const handoff: Handoff<J> = { due, extra, room, leasedAt: performance.now() };
    (this.pending ??= new Set()).add(handoff);
    return handoff;
  }

  /**
   * Lanes only: as `claimWithin`, where the store leases with a statement answered with COMMIT
   * (PostgreSQL). `take` leases in the caller's transaction at most `room` rows, none on a lane of `busy`, and says what
   * they will be (their lanes are held until the commit) and what was leased once it committed.
   * Undefined when stopped, without room, or when `take` leased nothing.
   */
  async claimAtCommit(
    take: (
      now: number,
      room: number,
      leaseUntilMs: number,
      busy: string[],
    ) => Promise<{ lanes: J[]; settled: Promise<AtCommit<J>> } | undefined>,
  ): Promise<Handoff<J> | undefined> {
    const p = this.port;
    if (!p.lane || !this.running) return undefined;
    // Busy (a pass under way or asked for, attempts in flight, another transaction's rows): the rows
    // join the next pass, which takes several transactions' at once (cheaper per row at a busy
    // business); a quiet one's rows are leased here, with no pass (a business among many).
    if (this.loopBuilt?.passing || (this.inFlight?.size ?? 0) > 0 || (this.pending?.size ?? 0) > 0) return undefined;
    const room = this.room();
    if (room <= 0) return undefined;
    const now = this.o.now();
    const taken = await take(now, room, now + p.leaseMs, this.busyLanes(p.lane));
    if (!taken) return undefined;
    // Rejected when the transaction did not commit: `abandoned` forgets it then.
    taken.settled.catch(() => undefined);
    const handoff: Handoff<J> = {
      due: taken.lanes,
      extra: undefined,
      room,
      leasedAt: performance.now(),
      settled: taken.settled,
    };
    (this.pending ??= new Set()).add(handoff);
    return handoff;
  }

  /** The transaction of a `claimWithin` committed: start its rows (a stopped runner releases them). */
  committed(handoff: Handoff<J>): void {
    if (!handoff.settled) {
      if (this.pending?.delete(handoff)) this.begin(handoff.due, handoff.extra, handoff.room);
      return;
    }
    // Its lanes stay held until the statement's answer is read (a microtask after COMMIT answered).
    handoff.settled.then(
      ({ due, extra }) => {
        if (this.pending?.delete(handoff)) this.begin(due, extra, handoff.room);
      },
      () => this.pending?.delete(handoff),
    );
  }

  /** Rows leased in a committed transaction: started (released instead when the runner stopped meanwhile). */
  private begin(due: J[] & { leftBehind?: boolean }, extra: ClaimExtra | undefined, room: number): void {
    const release = this.port.release;
    if (!this.running) {
      // Stopped meanwhile: stop() did not know these rows. Released now, or they lapse by themselves.
      if (due.length > 0 && release) void this.o.store.transaction((tx) => release(tx, due)).catch(() => undefined);
      return;
    }
    const leased = (this.leased ??= new Set());
    for (const job of due) leased.add(job);
    this.started(due, extra, room).catch((err) =>
      this.o.log.warn(`${this.port.name} could not start the rows it leased`, { error: String(err) }),
    );
  }

  /** The transaction of a `claimWithin` did not commit: nothing it leased is held. */
  abandoned(handoff: Handoff<J>): void {
    this.pending?.delete(handoff);
  }

  /** Lanes only: rows held now (leased and not recorded, or leased in a transaction not yet committed). */
  private *held(): Iterable<J> {
    if (this.leased) yield* this.leased;
    const lapsed = performance.now() - this.port.leaseMs;
    for (const h of this.pending ?? []) {
      // A handoff never settled (its caller lost track of it) stops holding its lanes once its lease lapsed.
      if (h.leasedAt < lapsed) this.pending?.delete(h);
      else yield* h.due;
    }
  }

  /** How many rows a claim may lease now. */
  private room(): number {
    let held = 0;
    for (const _ of this.held()) held++;
    return Math.min(this.port.batch, this.port.concurrency - held);
  }

  /** The lanes of the rows held now: a claim takes none of them. */
  private busyLanes(laneOf: (job: J) => string): string[] {
    const lanes = new Set<string>();
    for (const job of this.held()) lanes.add(laneOf(job));
    return [...lanes];
  }

  /** Lease what the free room and the idle lanes allow, and start each attempt without waiting for it. */
  private async launch(laneOf: (job: J) => string): Promise<number> {
    const p = this.port;
    const leased = (this.leased ??= new Set());
    if (this.room() <= 0 || !this.running) {
      // Nothing to claim (every lane's room taken, or stopped), but the work done with a claim still is.
      await p.withClaim?.standalone();
      return 0;
    }
    const now = this.o.now();
    let room = 0;
    // The claimed rows count as leased the moment the claim commits, and stop() waits for a claim
    // under way: a stop that lands meanwhile releases them with the rest. The room and the busy lanes
    // are read in the transaction: a caller's transaction may have leased rows since (claimWithin).
    const claim = this.o.store
      .transaction(async (tx) => {
        const extra = p.withClaim ? await p.withClaim.run(tx, now) : undefined;
        room = this.room();
        const due: J[] & { leftBehind?: boolean } =
          room > 0 ? await p.claim(tx, now, room, now + p.leaseMs, this.busyLanes(laneOf)) : [];
        return { due, extra };
      })
      .then(({ due, extra }) => {
        for (const job of due) leased.add(job);
        return { due, extra };
      });
    this.claiming = claim;
    const { due, extra } = await claim.finally(() => {
      if (this.claiming === claim) this.claiming = undefined;
    });
    return this.started(due, extra, room);
  }

  /** After a claim committed: its `withClaim` work's `after`, then each row's attempt, not waited for. */
  private async started(
    due: J[] & { leftBehind?: boolean },
    extra: ClaimExtra | undefined,
    room: number,
  ): Promise<number> {
    const p = this.port;
    await extra?.after?.();
    if (extra?.more) this.nudge();
    if (!this.running) return 0;
    const inFlight = (this.inFlight ??= new Map());
    const leased = (this.leased ??= new Set());
    // Rows may wait for an attempt's end: every lane's room taken, or the claim left a due row behind.
    // The latest claim says (one made while a lane was busy saw what waits for it).
    const capped = due.length === room;
    this.rowsWaiting = capped || due.leftBehind !== false;
    for (const job of due) {
      const run = this.run(job)
        .then(
          (done) => (done ? this.rowsWaiting : capped),
          (err) => {
            this.o.log.warn(`${p.noun} could not be recorded; it will be retried`, {
              ...p.describe(job),
              error: String(err),
            });
            return true;
          },
        )
        .then((freed) => {
          leased.delete(job);
          inFlight.delete(job);
          // A row done frees its lane for a row left waiting, if any. A failed one's lane waits: its target
          // just failed, and the retry it scheduled, the next commit or the next poll (a work hub's ask) takes the rest.
          if (freed) this.nudge();
          // The last attempt of a pass that ended before it: nothing more to do here.
          else if (inFlight.size === 0) this.letGo();
        });
      inFlight.set(job, run);
    }
    return due.length;
  }

  /** Attempt one row and record its end; true when it was done. */
  private async run(job: J): Promise<boolean> {
    const p = this.port;
    const attempts = job.attempts + 1;
    const startedMs = this.o.now();
    let result: R;
    try {
      result = await p.attempt(job);
    } catch (err) {
      // The database went away, not the row's work: its lease lapses and the loop pauses.
      if (err instanceof StoreUnavailable) throw err;
      const now = this.o.now();
      const { permanent, error } = p.failure(err, job);
      const at = permanent ? null : p.retryAt(job, { attempts, startedMs, now });
      const end: Failed = { attempts, startedMs, now, giveUp: at === null, retryAtMs: at ?? now, error, cause: err };
      this.o.log.warn(end.giveUp ? `${p.noun} failed for good` : `${p.noun} failed; it will be retried`, {
        ...p.describe(job),
        attempts,
        error,
      });
      await this.o.store.transaction((tx) => p.failed(tx, job, end));
      p.recorded?.(job, { failed: end });
      if (!end.giveUp && this.running) this.loop.schedule(Math.max(0, end.retryAtMs - this.o.now()));
      return false;
    }
    const end: Finished = { attempts, startedMs, now: this.o.now() };
    await this.o.store.transaction((tx) => p.done(tx, job, result, end));
    p.recorded?.(job, { result });
    if (p.doneMessage) this.o.log.info(p.doneMessage, p.describe(job));
    return true;
  }
}
