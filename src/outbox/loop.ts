/**
 * The loop every background worker runs (the webhook dispatcher, the payment worker, and whatever
 * else sends rows committed to a queue): a pass now and then, sooner when a commit nudges it, never
 * two passes at once, and a pass asked for while one runs happens right after it. While the database
 * is unavailable the loop pauses (one log line), keeps polling, and says when it is back. What a pass
 * does is the worker's own.
 */
import { StoreUnavailable } from '../store/index.js';

export interface LoopLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface BackgroundLoopOptions {
  /** Names the worker in log lines ("webhook dispatcher", "payment worker"). */
  name: string;
  /** One pass over the due work. */
  pass: () => Promise<void>;
  log: LoopLog;
  /**
   * Poll interval when idle (default 1 s). 0: the loop never polls by itself, only nudges start a
   * pass (`usp-server host serve`: the process's work hub asks each business what is due instead).
   */
  pollMs?: number;
  /** How long a nudge waits, so that one pass serves a burst of commits (default 5 ms). */
  debounceMs?: number;
  /**
   * A loop that never polls: told when a pass ended with no other pass asked for, the database
   * reachable and the loop not stopped (its runner may let go of what it built until the next nudge).
   */
  onIdle?: () => void;
}

export class BackgroundLoop {
  private timer?: NodeJS.Timeout;
  private timerAt = 0;
  private running = false;
  private again = false;
  /** Until start(): a loop that was never started ignores nudges. */
  private stopped = true;
  /** A nudge is already scheduled. */
  private pending = false;
  private paused = false;
  private current: Promise<void> | undefined;

  constructor(private readonly o: BackgroundLoopOptions) {}

  /**
   * Start: a pass now, then on the poll. A loop that never polls (pollMs 0) runs none until nudged:
   * the work hub that sets it asks the business what is due as it attaches it and nudges what is (an
   * idle business's first pass would only read empty queues, and keep what that read built).
   */
  start(): void {
    this.stopped = false;
    if (this.o.pollMs !== 0) this.schedule(0);
  }

  /** Stop polling; resolves once a pass under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current?.catch(() => undefined);
  }

  /** Something was committed: look soon. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (!this.pending) {
      this.pending = true;
      this.schedule(this.o.debounceMs ?? 5);
    }
  }

  /** Run a pass in `ms`, unless one is already due sooner (a later request never postpones an earlier one). */
  schedule(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.current = this.loop();
    }, ms);
    this.timer.unref();
  }

  /** Started and not stopped. */
  get isRunning(): boolean {
    return !this.stopped;
  }

  /** A pass running, or one asked for (nudged) and waiting for its debounce. */
  get passing(): boolean {
    return this.running || this.pending;
  }

  /** No pass running or waiting for its timer, and the database reachable. */
  get quiet(): boolean {
    return !this.running && !this.timer && !this.paused;
  }

  /** True while the database is unavailable (the loop retries every poll). */
  get isPaused(): boolean {
    return this.paused;
  }

  private async loop(): Promise<void> {
    this.pending = false;
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      do {
        this.again = false;
        await this.o.pass();
      } while (this.again && !this.stopped);
      if (this.paused) {
        this.paused = false;
        this.o.log.info(`${this.o.name} resumed: the database is back`);
      }
    } catch (err) {
      if (err instanceof StoreUnavailable) {
        if (!this.paused) this.o.log.warn(`${this.o.name} paused: database unavailable`, { reason: err.reason });
        this.paused = true;
      } else {
        this.o.log.warn(`${this.o.name} pass failed`, { error: String(err) });
      }
    } finally {
      this.running = false;
      const pollMs = this.o.pollMs ?? 1000;
      if (pollMs > 0) this.schedule(pollMs);
      else if (!this.timer && !this.paused && !this.stopped) this.o.onIdle?.();
    }
  }
}
