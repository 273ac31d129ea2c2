/**
 * WAL checkpoints off the event loop. By default SQLite copies the write-ahead log back into the
 * database file inside the COMMIT that pushes the log past 1,000 pages: with the synchronous driver
 * that copy (and its fsync) blocked every request for the length of it, a third of the commit time
 * under booking load. A worker thread with its own connection runs a PASSIVE checkpoint every
 * `intervalMs` instead (it never blocks the writer or readers); the writer's automatic checkpoint is
 * off while the worker runs, and comes back on if the worker ever stops on its own.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './statements.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// fileMustExist: a worker that starts after the file was deleted must not create an empty one in its
// place (the writer would then see a different file, and a reader would find empty tables). Failing
// here ends the worker, and the writer's own automatic checkpoints come back.
const db = new Database(workerData.path, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The file is busy, moved or gone: the writer reports faults; try again at the next tick.
  }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Default pause between background checkpoints. */
const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's own default for wal_autocheckpoint (pages). */
const AUTO_CHECKPOINT_PAGES = 1000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, path: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, intervalMs } });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const fallBack = () => {
    if (stopping) return;
    try {
      db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    } catch {
      /* the connection is closed */
    }
  };
  worker.on('error', fallBack);
  worker.on('exit', fallBack);
  db.pragma('wal_autocheckpoint = 0');
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      // Unref'd so that it never keeps a process alive by itself; waiting for its exit must.
      worker.ref();
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2000);
      timer.unref();
      await exited;
      clearTimeout(timer);
    },
  };
}
