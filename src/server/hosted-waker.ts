/**
 * The deployment's waker (`usp-server host serve`): a business that no request keeps loaded still
 * gets its background work done on time. Each business's next due instant is in the directory
 * (`wake_at`, WakeSchedule): written when the pool closes it (its `nextDueAt`), held ahead of now
 * while it is loaded (so a process that dies holding it leaves it due soon after), due at once when
 * added. Every `intervalMs` the waker's lanes (at most `concurrency`, each one business at a time)
 * claim the business longest due that this process does not hold, open it through the pool as a
 * visit (its composition starts its workers), sweep once, let the workers run until nothing is due
 * now or `boundMs` passed, and close it again unless a request came meanwhile (without waiting for
 * its workers to stop: one may wait out a hanging attempt). A business whose work outlasts the bound
 * (a webhook target that never answers) is due again no sooner than six bounds later (a minute),
 * behind every business due longer: it holds one lane for the bound at most, never the others.
 *
 * A loaded business's background work is the process's work hub's (work-hub.ts): one scheduler asks
 * every loaded business when it is due, and none of their workers polls by itself. The waker is the
 * same for those not loaded: it opens them when due (docs/DECISIONS.md).
 */
import type { Logger } from '../operations/index.js';
import type { DeploymentDirectory } from '../store/index.js';
import type { BusinessPool } from './hosted-pool.js';
import type { UspServer } from './options.js';

export interface WakerOptions {
  directory: DeploymentDirectory;
  pool: BusinessPool<UspServer>;
  /** The businesses' clock (epoch ms): `wake_at` is on it. */
  now: () => number;
  log: Logger;
  /** How often the waker looks for due businesses (ms; default 15 s). */
  intervalMs?: number;
  /** Businesses woken at once (default 2). */
  concurrency?: number;
  /** Longest a woken business's work runs before it is closed again (ms; default 10 s). */
  boundMs?: number;
}

export const DEFAULT_WAKE_INTERVAL_MS = 15_000;
export const DEFAULT_WAKE_CONCURRENCY = 2;
export const DEFAULT_WAKE_BOUND_MS = 10_000;
/** How often a woken business is asked whether anything is still due now. */
const SETTLE_POLL_MS = 100;

export interface Waker {
  /** One round now: every lane wakes due businesses until none is left (tests; the timer runs it). */
  tick(): Promise<void>;
  /** How far ahead of now a loaded (or claimed) business is held. */
  readonly holdMs: number;
  /** When a business being closed is next due (its `nextDueAt`; six bounds on at the earliest if its work outlasted the bound). */
  dueAt(id: string, server: UspServer): Promise<number>;
  stop(): Promise<void>;
}

export function startWaker(o: WakerOptions): Waker {
  const intervalMs = o.intervalMs ?? DEFAULT_WAKE_INTERVAL_MS;
  const lanes = Math.max(1, o.concurrency ?? DEFAULT_WAKE_CONCURRENCY);
  const boundMs = o.boundMs ?? DEFAULT_WAKE_BOUND_MS;
  // Longer than a woken business is held open, and than a few rounds: a live holder renews it each round.
  const holdMs = Math.max(60_000, 4 * intervalMs, 2 * boundMs);
  // A business whose work outlasted the bound (an endpoint down) takes a lane for a sixth of the time at most.
  const stalledMs = Math.max(intervalMs, 6 * boundMs);
  let stopped = false;
  let round: Promise<void> | undefined;
  const stalled = new Set<string>();

  const wakeOne = async (id: string): Promise<void> => {
    const started = performance.now();
    let settled = false;
    stalled.delete(id);
    await o.pool.visit(id, async (server) => {
      await server.sweepNow();
      settled = await settles(server, () => stopped || performance.now() - started >= boundMs);
      // Still due at the bound: its close records it due a minute on (six bounds), behind those due longer.
      if (!settled) stalled.add(id);
    });
    if (!settled && !stopped)
      o.log.warn('a woken business still has work due at the bound', { business: id, ms: boundMs });
  };

  const lane = async (): Promise<void> => {
    while (!stopped) {
      const now = o.now();
      const [id] = await o.directory.wake.claimDue(now, 1, now + holdMs, o.pool.ids);
      if (id === undefined) return;
      if (!o.directory.get(id)) continue;
      try {
        await wakeOne(id);
      } catch (err) {
        o.log.error('could not wake a business', { business: id, error: String(err) });
      }
    }
  };

  const runRound = async (): Promise<void> => {
    try {
      // The businesses loaded here are held ahead of now: no other process wakes them meanwhile.
      const loaded = o.pool.ids;
      if (loaded.length > 0) await o.directory.wake.set(loaded, o.now() + holdMs);
      await Promise.all(Array.from({ length: lanes }, lane));
    } catch (err) {
      o.log.warn('the waker could not read the directory; it tries again', { error: String(err) });
    }
  };

  const tick = (): Promise<void> => {
    round ??= runRound().finally(() => {
      round = undefined;
    });
    return round;
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    tick,
    holdMs,
    async dueAt(id, server) {
      const due = await server.nextDueAt();
      return stalled.delete(id) ? Math.max(due, o.now() + stalledMs) : due;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round;
    },
  };
}

/**
 * The composition started its workers: they take what is due. True once nothing is due now; false
 * when `over` says to stop asking first.
 */
async function settles(server: UspServer, over: () => boolean): Promise<boolean> {
  while (!over()) {
    if ((await server.nextDueAt()) > server.clock.now()) return true;
    await sleep(SETTLE_POLL_MS);
  }
  return false;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
