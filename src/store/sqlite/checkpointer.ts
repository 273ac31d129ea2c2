/**
 * WAL checkpoints off the event loop. By default SQLite copies the write-ahead log back into the
 * database file inside the COMMIT that pushes the log past 1,000 pages: with the synchronous driver
 * that copy (and its fsync) blocked every request for the length of it, a third of the commit time
 * under booking load. A worker thread with its own connection to each file runs a PASSIVE checkpoint
 * every `intervalMs` instead (it never blocks the writer or readers); the writer's automatic
 * checkpoint is off while the worker serves its file, and comes back on if the worker cannot.
 *
 * One worker per process, whatever the number of files: a thread is a V8 isolate of its own (about
 * 10 MB resident and hundreds of milliseconds to start on a loaded machine), which a deployment
 * hosting many businesses, a file each, paid once per business (docs/SCALING.md). The worker
 * checkpoints only the files written since their last complete checkpoint: a commit counts itself in
 * memory shared with the worker (no message per commit), and an idle file costs it nothing. A file
 * is checkpointed once a few commits wait or the first waited long enough (`CHECKPOINT_COMMITS`). It starts with the first file and ends with the last, as a single store's worker did.
 *
 * The worker alone never let the log start over while writes did not pause. SQLite writes from the
 * log's beginning again only when a write transaction begins with every frame already copied back;
 * under load the writer commits every turn of the event loop and begins the next transaction at once,
 * so a checkpoint begun before the last commit is never complete then, and the log grew by all that
 * was written (14 MB/s at 200 bookings/s), without end. So once a checkpoint finds the log past
 * `restartFrames`, the worker asks for a finishing copy: after its next COMMIT the writer tells the
 * worker to copy the few frames committed since, and its next BEGIN waits for that copy (on memory
 * shared with the worker, `Atomics.wait`, at most `FINISH_WAIT_MS`); that transaction then begins
 * with everything copied, and writes from the log's beginning. The event loop stands still for
 * the copy and its two fsyncs, a few milliseconds once per `restartFrames` written, instead of a
 * turn: a wait on a message (an awaited promise) was answered only at the next turn of a loop busy
 * with the requests of this one (tens of milliseconds under load).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './statements.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { openSync, fdatasyncSync, closeSync } = require('node:fs');
// How many times the worker synced a log without a checkpoint (read by tests).
const logSyncs = new Int32Array(workerData.logSyncs);
// Per file, the commits since its last checkpoint (the writer adds one per COMMIT); DUE: at the next tick.
const flags = new Int32Array(workerData.flags);
const DUE = 1 << 30;
const COMMITS = workerData.commits;
// A log this long at the last checkpoint (SQLite's own checkpoint size) is a busy file's: every tick.
const LONG_LOG = 1000;
// Per file, the finishing copy: 0 none, 1 asked by the worker, 2 asked of the worker by the writer, 3 done.
const finishes = new Int32Array(workerData.finishes);
const files = new Map();
// The pin: a read transaction of its own connection, begun at the log's end just before a quiet file's
// checkpoint and held until the next one. A write that finds every frame copied back starts the log
// over, and syncs its new header first, on the event loop; while a reader holds a later frame, the
// write appends instead. A log past PIN_FRAMES is let go, so that it starts over and stays short.
const PIN_FRAMES = workerData.pinFrames;
const unpin = (file) => {
  if (file.pin?.db.inTransaction) file.pin.end.run();
};
const pin = (file) => {
  unpin(file);
  if (!file.pin) {
    const db = new Database(file.path, { fileMustExist: true });
    db.pragma('query_only = ON');
    file.pin = { db, begin: db.prepare('BEGIN'), read: db.prepare('SELECT count(*) FROM sqlite_schema'), end: db.prepare('COMMIT') };
  }
  file.pin.begin.run();
  file.pin.read.get();
};
const checkpoint = (slot, file, ask) => {
  try {
    // A finishing copy is asked so that the log starts over: nothing may hold it.
    if (ask) pin(file);
    else unpin(file);
    const [r] = file.db.pragma('wal_checkpoint(PASSIVE)');
    file.log = r.log;
    if (r.log >= PIN_FRAMES) unpin(file);
    // Not again for a log that has not moved since the finishing copy: the writer has not written yet.
    if (ask && r.log >= file.restartFrames && r.log !== file.finished)
      if (Atomics.compareExchange(finishes, slot, 0, 1) !== 0) Atomics.compareExchange(finishes, slot, 3, 1);
    if (!ask) file.finished = r.log;
    // A reader on an older snapshot kept some frames: try again at the next tick.
    if (r.busy !== 0 || r.checkpointed < r.log) Atomics.store(flags, slot, DUE);
  } catch {
    // The file is busy, moved or gone: the writer reports faults; try again at the next tick.
    try {
      unpin(file);
    } catch {}
    Atomics.store(flags, slot, DUE);
  }
};
const closeFile = (file) => {
  file.pin?.db.close();
  file.db.close();
};
// The log's new frames on the disk, without copying them back: what a checkpoint syncs first. A commit
// waiting for its paced checkpoint is so on the disk within a tick, as when each was checkpointed.
const syncLog = (file) => {
  let fd;
  try {
    fd = openSync(file.wal, 'r');
    fdatasyncSync(fd);
    Atomics.add(logSyncs, 0, 1);
  } catch {
    // No log (nothing written since it was removed) or the file is gone: nothing to sync.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};
parentPort.on('message', (m) => {
  if (m.add !== undefined) {
    // fileMustExist: a file deleted before the worker reached it must not be created empty in its
    // place (the writer would then see a different file). The writer takes its own checkpoints back.
    try {
      files.set(m.add, {
        db: new Database(m.path, { fileMustExist: true }),
        path: m.path,
        pin: undefined,
        restartFrames: m.restartFrames,
        maxDelayMs: m.maxDelayMs,
        wal: m.path + '-wal',
        since: 0,
        synced: 0,
        log: 0,
      });
    } catch {
      parentPort.postMessage({ failed: m.add });
    }
  } else if (m.finish !== undefined) {
    // The writer has no transaction open and its next BEGIN waits: copy what it committed since the last tick.
    const file = files.get(m.finish);
    if (file) checkpoint(m.finish, file, false);
    Atomics.store(finishes, m.finish, 3);
    Atomics.notify(finishes, m.finish);
  } else if (m.remove !== undefined) {
    const file = files.get(m.remove);
    if (file) closeFile(file);
    files.delete(m.remove);
    parentPort.postMessage({ removed: m.remove });
  } else if (m === 'stop') {
    clearInterval(timer);
    for (const file of files.values()) closeFile(file);
    parentPort.close();
  }
});
// A file is checkpointed once COMMITS commits wait, or the first of them waited its maxDelayMs, or its log
// was long: a busy file every tick, a quiet one (a hosted business among many) once per few bookings.
const timer = setInterval(() => {
  const now = Date.now();
  for (const [slot, file] of files) {
    const waiting = Atomics.load(flags, slot);
    if (waiting === 0) continue;
    file.since ||= now;
    if (waiting < COMMITS && file.log < LONG_LOG && now - file.since < file.maxDelayMs) {
      if (waiting !== file.synced) syncLog(file);
      file.synced = waiting;
      continue;
    }
    Atomics.store(flags, slot, 0);
    file.since = 0;
    file.synced = 0;
    checkpoint(slot, file, true);
  }
}, workerData.intervalMs);
`;

/** Pause between background checkpoints. */
const CHECKPOINT_INTERVAL_MS = 100;
/**
 * A file is checkpointed at the first tick once this many commits wait (a busy file: every tick, as
 * before), once the first of them waited `CHECKPOINT_MAX_DELAY_MS`, or when its log was 1,000 frames
 * or more at its last checkpoint (busy, or not yet started over). Each checkpoint of a file
 * syncs its log and its database file: a hosted business among 200, a file each, was checkpointed
 * after every booking, and those syncs took a third of the CPU per booking (docs/DECISIONS.md,
 * "Checkpoints paced by commits").
 */
const CHECKPOINT_COMMITS = 8;
/**
 * The longest a commit waits for its checkpoint. With `synchronous = NORMAL` a commit is on the disk
 * once its log is synced: a commit whose checkpoint waits has its log synced at the next tick
 * (an fdatasync of the `-wal` file, half of a checkpoint's two syncs and none of its copying), so a
 * power cut loses at most a tick's commits, as before the pacing.
 */
export const CHECKPOINT_MAX_DELAY_MS = 10_000;
/** SQLite's own default for wal_autocheckpoint (pages). */
const AUTO_CHECKPOINT_PAGES = 1000;
/** Files the worker serves at once; a file beyond them keeps SQLite's own checkpoints. */
const MAX_FILES = 16_384;
/**
 * Log length (frames, a page each: 16 MB at 4 KB pages) from which the worker asks for a finishing
 * copy so that the log starts over: about its longest, once the worker keeps up (it grows by one
 * tick's writes past it).
 */
export const RESTART_FRAMES = 4096;
/**
 * Log length (frames) up to which a quiet file's log is held past its checkpoint, so that the next
 * write appends to it rather than starting it over (WORKER_SOURCE, the pin): 1 MB at 4 KB pages.
 * Starting over syncs the log's header inside the writer's COMMIT, on the event loop; a hosted
 * business among many, checkpointed between two bookings, paid it on each (docs/DECISIONS.md,
 * "A quiet log is held past its checkpoint").
 */
export const PIN_FRAMES = 256;
/** The longest a BEGIN waits for the worker's finishing copy before it writes on (the log then grows on). */
const FINISH_WAIT_MS = 50;

export interface Checkpointer {
  /**
   * A commit wrote to the log: the worker checkpoints the file at its next tick; and, when the
   * worker asked for it, it copies now what the writer committed since (see `beforeWrite`).
   */
  wrote(): void;
  /** The writer is about to begin a transaction: first wait for a finishing copy asked of the worker. */
  beforeWrite(): void;
  stop(): Promise<void>;
}

/** The one worker of the process, with its files by slot (its index in the shared flags). */
interface SharedWorker {
  worker: Worker;
  flags: Int32Array;
  /** Per file, the finishing copy (WORKER_SOURCE): 0 none, 1 asked by the worker, 2 asked of it, 3 done. */
  finishes: Int32Array;
  /** The writer connection of each file served, to give its own checkpoints back if the worker cannot. */
  writers: Map<number, Db>;
  removals: Map<number, () => void>;
  exited: Promise<void>;
  stopping: boolean;
}

let shared: SharedWorker | undefined;
/** Logs synced by the worker without a checkpoint, over the process's life (`logSyncs`). */
const logSyncCount = new Int32Array(new SharedArrayBuffer(4));
let nextSlot = 0;

/** How many times the checkpoint worker synced a log whose checkpoint was waiting (for tests). */
export function logSyncs(): number {
  return Atomics.load(logSyncCount, 0);
}
const freeSlots: number[] = [];

function fallBack(db: Db): void {
  try {
    db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  } catch {
    /* the connection is closed */
  }
}

function startWorker(intervalMs: number): SharedWorker {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const flags = new Int32Array(new SharedArrayBuffer(MAX_FILES * 4));
  const finishes = new Int32Array(new SharedArrayBuffer(MAX_FILES * 4));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver,
      flags: flags.buffer,
      finishes: finishes.buffer,
      logSyncs: logSyncCount.buffer,
      intervalMs,
      commits: CHECKPOINT_COMMITS,
      pinFrames: PIN_FRAMES,
    },
  });
  worker.unref();
  const w: SharedWorker = {
    worker,
    flags,
    finishes,
    writers: new Map(),
    removals: new Map(),
    exited: new Promise<void>((resolve) => worker.once('exit', () => resolve())),
    stopping: false,
  };
  const lost = () => {
    if (shared === w) shared = undefined;
    if (w.stopping) return;
    for (const db of w.writers.values()) fallBack(db);
    for (const done of w.removals.values()) done();
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  worker.on('message', (m: { failed?: number; removed?: number }) => {
    if (m.failed !== undefined) {
      const db = w.writers.get(m.failed);
      if (db) fallBack(db);
    }
    if (m.removed !== undefined) w.removals.get(m.removed)?.();
  });
  return w;
}

/** Serve `path` (its writer `db`) from the process's worker; the first file sets the worker's interval. */
export function startCheckpointer(
  db: Db,
  path: string,
  { intervalMs = CHECKPOINT_INTERVAL_MS, restartFrames = RESTART_FRAMES, maxDelayMs = CHECKPOINT_MAX_DELAY_MS } = {},
): Checkpointer | undefined {
  const slot = freeSlots.pop() ?? (nextSlot < MAX_FILES ? nextSlot++ : undefined);
  if (slot === undefined) return undefined;
  if (!shared) shared = startWorker(intervalMs);
  const w = shared;
  w.writers.set(slot, db);
  // Checkpointed at the worker's next tick (the file's schema was just written).
  Atomics.store(w.flags, slot, CHECKPOINT_COMMITS);
  Atomics.store(w.finishes, slot, 0);
  w.worker.postMessage({ add: slot, path, restartFrames, maxDelayMs });
  db.pragma('wal_autocheckpoint = 0');
  let stopped: Promise<void> | undefined;
  /** A finishing copy was asked of the worker since the last BEGIN. */
  let finishing = false;
  return {
    wrote() {
      Atomics.add(w.flags, slot, 1);
      if (shared !== w || Atomics.compareExchange(w.finishes, slot, 1, 2) !== 1) return;
      finishing = true;
      w.worker.postMessage({ finish: slot });
    },
    beforeWrite() {
      if (!finishing) return;
      finishing = false;
      // Once: a copy that takes longer (the worker busy, or gone) is not waited for again.
      if (shared === w) Atomics.wait(w.finishes, slot, 2, FINISH_WAIT_MS);
    },
    stop() {
      stopped ??= removeFile(w, slot);
      return stopped;
    },
  };
}

/** The worker lets the file go (its connection closed before the writer's); the last file ends the worker. */
async function removeFile(w: SharedWorker, slot: number): Promise<void> {
  if (w.writers.delete(slot) && shared === w) {
    // Unref'd so that it never keeps a process alive by itself; waiting for an answer must.
    w.worker.ref();
    const removed = new Promise<void>((resolve) => w.removals.set(slot, resolve));
    w.worker.postMessage({ remove: slot });
    const timer = setTimeout(() => w.removals.get(slot)?.(), 2000);
    timer.unref();
    await removed;
    clearTimeout(timer);
    w.removals.delete(slot);
    if (w.removals.size === 0) w.worker.unref();
  }
  Atomics.store(w.flags, slot, 0);
  freeSlots.push(slot);
  if (w.writers.size === 0 && shared === w) await stopWorker(w);
}

async function stopWorker(w: SharedWorker): Promise<void> {
  shared = undefined;
  w.stopping = true;
  w.worker.ref();
  w.worker.postMessage('stop');
  const timer = setTimeout(() => void w.worker.terminate(), 2000);
  timer.unref();
  await w.exited;
  clearTimeout(timer);
}
