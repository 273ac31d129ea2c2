/**
 * The businesses a hosting deployment holds composed at once: each opened on its first request
 * (concurrent first requests share one opening), at most `maxLoaded` of them, the least recently
 * used closed first when one more is needed, and any left idle `idleCloseMs` closed by a periodic
 * sweep. A business answering a request is never closed under it, and one being closed opens again
 * only once that close has ended; closing one stops its workers and
 * closes its store, and its next request opens it again from its store. The waker (hosted-waker.ts)
 * opens one for its background work as a visit, which is no use: it is closed again after, unless a
 * request came meanwhile.
 */
import type { Logger } from '../operations/index.js';

/** What the pool needs of a composed business: a way to close it. */
export interface Closable {
  close(): Promise<void>;
}

export interface PoolOptions<T extends Closable> {
  open(id: string): Promise<T>;
  maxLoaded: number;
  /** Close a business unused this long (ms); 0 never closes for idleness. */
  idleCloseMs: number;
  /** Monotonic milliseconds (idleness is wall time, whatever clock the businesses run on). */
  now(): number;
  log: Logger;
  /** Told before a business is closed, whatever closes it (host serve records when it is next due). */
  closing?(id: string, value: T): Promise<void>;
}

interface Loaded<T> {
  value: T;
  lastUsed: number;
  busy: number;
  /** Set once retired while answering requests: closes it when the last of them ends. */
  retired?: () => void;
  /** Requests it answered (a visit that finds this unchanged closes it again). */
  uses: number;
}

export class BusinessPool<T extends Closable> {
  /** In use order: the first key is the least recently used. */
  private readonly loaded = new Map<string, Loaded<T>>();
  private readonly opening = new Map<string, Promise<Loaded<T>>>();
  /** Retired businesses still answering requests, by entry: closed when those end, or with everything. */
  private readonly retiring = new Map<Loaded<T>, string>();
  /**
   * Each business's close under way (closeAll waits for them): it opens again only after, since closing
   * a store copies its log back under the file's exclusive lock, which a new store's first write would
   * wait out only for its busy timeout.
   */
  private readonly shutting = new Map<string, Promise<void>>();
  private readonly sweeper?: NodeJS.Timeout;

  constructor(private readonly o: PoolOptions<T>) {
    if (o.idleCloseMs > 0) {
      this.sweeper = setInterval(
        () => void this.closeIdle(),
        Math.max(1_000, Math.min(30_000, Math.floor(o.idleCloseMs / 2))),
      );
      this.sweeper.unref();
    }
  }

  /** The ids loaded now, least recently used first. */
  get ids(): string[] {
    return [...this.loaded.keys()];
  }

  /** Run `fn` with the business `id` loaded (opened first when it is not), and it kept open meanwhile. */
  async use<R>(id: string, fn: (value: T) => Promise<R>): Promise<R> {
    const entry = await this.acquire(id);
    entry.uses++;
    try {
      return await fn(entry.value);
    } finally {
      entry.lastUsed = this.o.now();
      this.release(entry);
    }
  }

  /**
   * Run `fn` with business `id` loaded for its background work, not for a request (host serve's
   * waker): opened first when it is not loaded, and closed again after unless it was loaded before
   * or a request used it meanwhile (then it stays, as any business a request opened). Its use order
   * and idleness are left as they were.
   */
  async visit<R>(id: string, fn: (value: T) => Promise<R>): Promise<R> {
    const before = this.loaded.has(id) || this.opening.has(id);
    const entry = await this.acquire(id, false);
    const uses = entry.uses;
    try {
      return await fn(entry.value);
    } finally {
      this.release(entry);
      if (!before && entry.uses === uses && entry.busy === 0 && this.loaded.get(id) === entry) {
        this.loaded.delete(id);
        // Not waited for: a worker's stop may wait out an attempt under way (a calendar feed or a mail
        // relay that hangs until its timeout), and the visitor goes on to the next business meanwhile.
        void this.shut(id, entry, 'closed after its background work');
      }
    }
  }

  /**
   * Run `fn` on business `id` only if it is loaded now, without opening it or counting as a use (an
   * operator reading its health keeps nothing loaded); undefined when it is not loaded.
   */
  async peek<R>(id: string, fn: (value: T) => Promise<R>): Promise<R | undefined> {
    const entry = this.loaded.get(id);
    if (!entry) return undefined;
    entry.busy++;
    try {
      return await fn(entry.value);
    } finally {
      this.release(entry);
    }
  }

  /**
   * Business `id` to be composed afresh on its next request (what it was composed with changed): `value`,
   * if it is still the one loaded, leaves the pool now and is closed once the requests it answers end
   * (a request in flight is never cut; the next one opens the business again).
   */
  retire(id: string, value: T): void {
    const entry = this.loaded.get(id);
    if (!entry || entry.value !== value) return;
    this.loaded.delete(id);
    const shut = () => {
      entry.retired = undefined;
      this.retiring.delete(entry);
      void this.shut(id, entry, 'closed, to be composed again');
    };
    if (entry.busy === 0) {
      shut();
      return;
    }
    entry.retired = shut;
    this.retiring.set(entry, id);
  }

  /** Close business `id` if it is loaded (suspended, or told to). */
  async close(id: string): Promise<void> {
    const pending = this.opening.get(id);
    if (pending) await pending.catch(() => undefined);
    const entry = this.loaded.get(id);
    if (!entry) return;
    this.loaded.delete(id);
    await this.shut(id, entry, 'closed');
  }

  /** Close every business unused for `idleCloseMs` (the sweep; a test may call it). */
  async closeIdle(): Promise<void> {
    const before = this.o.now() - this.o.idleCloseMs;
    for (const [id, entry] of [...this.loaded]) {
      // Closed meanwhile (by another sweep, an eviction or a retirement while this one awaited a close): not again.
      if (this.loaded.get(id) !== entry || entry.busy > 0 || entry.lastUsed > before) continue;
      this.loaded.delete(id);
      await this.shut(id, entry, 'closed after idling');
    }
  }

  /** Close everything (the deployment stops). */
  async closeAll(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.allSettled([...this.opening.values(), ...this.shutting.values()]);
    const all = [...this.loaded, ...[...this.retiring].map(([entry, id]) => [id, entry] as const)];
    for (const [entry] of this.retiring) entry.retired = undefined;
    this.retiring.clear();
    this.loaded.clear();
    await Promise.all(all.map(([id, entry]) => this.shut(id, entry, 'closed')));
  }

  private async acquire(id: string, used = true): Promise<Loaded<T>> {
    const hit = this.loaded.get(id);
    if (hit && !used) {
      hit.busy++;
      return hit;
    }
    if (hit) {
      // Most recently used: to the end of the order.
      this.loaded.delete(id);
      this.loaded.set(id, hit);
      hit.busy++;
      return hit;
    }
    let pending = this.opening.get(id);
    if (!pending) {
      pending = this.openOne(id);
      this.opening.set(id, pending);
    }
    const entry = await pending;
    entry.busy++;
    return entry;
  }

  private async openOne(id: string): Promise<Loaded<T>> {
    try {
      await this.shutting.get(id);
      const started = performance.now();
      const value = await this.o.open(id);
      const entry: Loaded<T> = { value, lastUsed: this.o.now(), busy: 0, uses: 0 };
      this.loaded.set(id, entry);
      this.o.log.info('business opened', {
        business: id,
        ms: Math.round(performance.now() - started),
        loaded: this.loaded.size,
      });
      await this.evictOverCap(id);
      return entry;
    } finally {
      this.opening.delete(id);
    }
  }

  /** Over the cap: the least recently used businesses not answering a request are closed. */
  private async evictOverCap(opened: string): Promise<void> {
    for (const [id, entry] of [...this.loaded]) {
      if (this.loaded.size <= this.o.maxLoaded) return;
      if (this.loaded.get(id) !== entry || entry.busy > 0 || id === opened) continue;
      this.loaded.delete(id);
      await this.shut(id, entry, 'closed, least recently used');
    }
  }

  private release(entry: Loaded<T>): void {
    entry.busy--;
    if (entry.busy === 0) entry.retired?.();
  }

  private shut(id: string, entry: Loaded<T>, why: string): Promise<void> {
    const before = this.shutting.get(id);
    const done = (async () => {
      await before;
      await this.closeOne(id, entry, why);
    })().finally(() => {
      if (this.shutting.get(id) === done) this.shutting.delete(id);
    });
    this.shutting.set(id, done);
    return done;
  }

  private async closeOne(id: string, entry: Loaded<T>, why: string): Promise<void> {
    await this.o
      .closing?.(id, entry.value)
      .catch((err) =>
        this.o.log.warn('could not record when a business is next due', { business: id, error: String(err) }),
      );
    try {
      await entry.value.close();
      this.o.log.info(`business ${why}`, { business: id, loaded: this.loaded.size });
    } catch (err) {
      this.o.log.error('could not close a business cleanly', { business: id, error: String(err) });
    }
  }
}
