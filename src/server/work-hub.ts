/**
 * The process's one scheduler of background work (`usp-server host serve`, issue 39 item 4): every
 * business loaded here is attached to it, and no worker of theirs polls on its own (each composed
 * with `workerPollMs: 0`). The hub asks each business, when it is next due, what is due now
 * (`UspServer.runDue`: one statement of indexed reads, src/store/shared/due.ts), and that starts the
 * workers whose work has come (mail, webhooks and MCP notifications, payment jobs, calendar pushes)
 * and sweeps when an expiry is due. A business with nothing due is asked again at its next due
 * instant or after `idleMs`, whichever comes first (work another process wrote for it is seen then;
 * what this process commits nudges its workers at once, as before); one that had work due is asked
 * again after `busyMs`, while its workers take it.
 *
 * Fair: businesses are asked in the order they came due, at most `concurrency` at once, and an ask
 * only starts workers, it never waits for their attempts. A business whose webhook endpoint hangs with
 * a backlog of thousands, or whose calendar feed never answers, occupies its own workers, never the
 * hub: another's mail and expiries start on time (test/server/work-hub.test.ts, hosting-workers.test.ts).
 *
 * Before the hub each loaded business ran four or five loops polling every second: 200 idle
 * businesses took a tenth of a core asking for nothing (docs/BENCHMARKS.md, "One scheduler for every
 * business's background work").
 */
import type { Logger } from '../operations/index.js';

/** What the hub asks of a business. */
export interface HubMember {
  /** Start the workers whose work is due now; the kinds started, and when the rest is next due (epoch ms, its clock). */
  runDue(): Promise<{ ran: readonly string[]; nextAt: number }>;
  /** The business's clock (its due instants are on it). */
  readonly clock: { now(): number };
}

export interface WorkHubOptions {
  log: Logger;
  /** A business with nothing due is asked again after this long at the latest (ms; default 5 s). */
  idleMs?: number;
  /** A business whose workers were started is asked again after this long (ms; default 1 s). */
  busyMs?: number;
  /** Businesses asked at once (default 4). */
  concurrency?: number;
}

export const DEFAULT_HUB_IDLE_MS = 5_000;
export const DEFAULT_HUB_BUSY_MS = 1_000;
export const DEFAULT_HUB_CONCURRENCY = 4;
/** Never sooner than this after an ask (a due instant a hair ahead is not worth a timer of its own). */
const MIN_DELAY_MS = 10;

interface Entry {
  id: string;
  member: HubMember;
  /** Bumped on every reschedule and detach: heap items of an older generation are stale. */
  gen: number;
}

export class WorkHub {
  private readonly idleMs: number;
  private readonly busyMs: number;
  private readonly lanes: number;
  private readonly entries = new Map<string, Entry>();
  private readonly heap = new MinHeap();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  /** Asks made since the start (tests, metrics). */
  asks = 0;

  constructor(private readonly o: WorkHubOptions) {
    this.idleMs = o.idleMs ?? DEFAULT_HUB_IDLE_MS;
    this.busyMs = o.busyMs ?? DEFAULT_HUB_BUSY_MS;
    this.lanes = Math.max(1, o.concurrency ?? DEFAULT_HUB_CONCURRENCY);
  }

  /** Ask this business soon, and from then on when it is due. Attaching an id again replaces the member. */
  attach(id: string, member: HubMember): void {
    const e: Entry = { id, member, gen: 0 };
    this.entries.set(id, e);
    this.schedule(e, 0);
  }

  /**
   * Ask it no more (closed); an ask under way ends by itself. With a member: only while that one is
   * attached (a business composed again is attached before the old composition closes).
   */
  detach(id: string, member?: HubMember): void {
    const e = this.entries.get(id);
    if (!e || (member && e.member !== member)) return;
    e.gen++;
    this.entries.delete(id);
  }

  /** Ask this business now (tests). */
  async askNow(id: string): Promise<void> {
    const e = this.entries.get(id);
    if (e) await this.run(e);
  }

  /** The businesses attached. */
  get size(): number {
    return this.entries.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.entries.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(e: Entry, delayMs: number): void {
    e.gen++;
    this.heap.push({ at: performance.now() + Math.max(0, delayMs), id: e.id, gen: e.gen });
    this.arm();
  }

  /** One timer for the whole process, set for the earliest business due. */
  private arm(): void {
    const top = this.heap.peek();
    if (this.stopped || !top || (this.timer && this.timerAt <= top.at)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = top.at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(0, top.at - performance.now()),
    );
    this.timer.unref();
  }

  /** Ask the businesses due, earliest first, while a lane is free. */
  private pump(): void {
    const now = performance.now();
    while (!this.stopped && this.inFlight.size < this.lanes) {
      const top = this.heap.peek();
      if (!top || top.at > now) break;
      this.heap.pop();
      const e = this.entries.get(top.id);
      if (!e || e.gen !== top.gen) continue;
      const ask: Promise<void> = this.run(e).finally(() => {
        this.inFlight.delete(ask);
        this.pump();
      });
      this.inFlight.add(ask);
    }
    this.arm();
  }

  private async run(e: Entry): Promise<void> {
    const gen = ++e.gen;
    this.asks++;
    let delay = this.busyMs;
    try {
      const { ran, nextAt } = await e.member.runDue();
      if (ran.length === 0) delay = Math.min(this.idleMs, Math.max(MIN_DELAY_MS, nextAt - e.member.clock.now()));
    } catch (err) {
      // Closed while being asked (its store with it): nothing to say.
      if (this.entries.get(e.id) === e)
        this.o.log.warn('could not ask a business what work is due; it is asked again', {
          business: e.id,
          error: String(err),
        });
    }
    // Detached, replaced or asked by hand meanwhile: that owner schedules it.
    if (this.entries.get(e.id) === e && e.gen === gen && !this.stopped) this.schedule(e, delay);
  }
}

interface HeapItem {
  at: number;
  id: string;
  gen: number;
}

/** A binary min-heap on `at` (stale items are skipped when popped: a reschedule pushes, never moves). */
class MinHeap {
  private readonly items: HeapItem[] = [];

  push(item: HeapItem): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p].at <= a[i].at) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }

  peek(): HeapItem | undefined {
    return this.items[0];
  }

  pop(): HeapItem | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].at < a[m].at) m = l;
        if (r < a.length && a[r].at < a[m].at) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}
