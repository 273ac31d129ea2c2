/**
 * A LISTEN on a connection of its own that comes back: LISTEN belongs to a session, so it cannot ride
 * on a pooled connection, and a session is lost when the server restarts, fails over or cuts it. A lost
 * connection is reconnected after a growing, jittered delay (250 ms doubling up to 10 s, so a restart
 * is not hammered), and each time it listens again its user is told, with when it was lost, to read
 * what it missed: a notification sent while nobody listened is gone. Used by the event channel
 * (channel.ts) and the deployment's directory (deployment-directory.ts). The session it listens on is a
 * connection of its own, or one shared by the channels of a keyed schema's businesses (listen.ts).
 */
import type pg from 'pg';
import { type Listen, type Listening, dedicatedListen } from './listen.js';

export interface ListenOptions {
  config: pg.ClientConfig;
  /** Where to LISTEN: a connection of its own (from `config`) unless given one shared (listen.ts). */
  listen?: Listen;
  channel: string;
  /** A notification on the channel (its payload, possibly empty). */
  onNotify(payload: string): void;
  /**
   * Listening (again): read what was missed. `lostAtMs` is when the connection was lost or the first
   * attempt failed (undefined on a first connection made at once). A throw counts as a failed connection:
   * it is closed and tried again.
   */
  onListening(lostAtMs: number | undefined): Promise<void>;
  /** A fault of the connection or of `onListening` (the caller logs it); the connection is tried again. */
  onError(err: Error): void;
}

export class ListenConnection {
  private client?: Listening;
  private readonly session: Listen;
  /** The client has listened and its user has read what it missed. */
  private caughtUp = false;
  private connecting?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;
  /** When the connection was lost (or a first attempt failed); undefined while connected. */
  private lostAtMs?: number;
  private failures = 0;

  constructor(private readonly o: ListenOptions) {
    this.session = o.listen ?? dedicatedListen(o.config, o.onError, { emptyPayloads: true });
  }

  /** Listening now, and caught up on what was missed before. */
  get listening(): boolean {
    return this.client !== undefined && this.caughtUp;
  }

  /** Connect if not connected or connecting; resolves once this attempt is over (listening, or retried later). */
  start(): Promise<void> {
    if (this.closed || this.client) return this.connecting ?? Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    const c = this.client;
    this.client = undefined;
    this.caughtUp = false;
    if (c) await c.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    let c: Listening | undefined;
    // Lost before the session was handed over (between its LISTEN and this turn): seen once it is.
    let lostEarly = false;
    try {
      c = await this.session(
        this.o.channel,
        (payload) => this.o.onNotify(payload),
        () => (c ? this.lost(c) : (lostEarly = true)),
      );
      if (this.closed || lostEarly) {
        await c.close().catch(() => undefined);
        if (lostEarly) this.retryLater();
        return;
      }
      // Listening from here on (a loss from now on is seen): what came before is the user's to read.
      this.client = c;
      this.caughtUp = false;
      await this.o.onListening(this.lostAtMs);
      // Lost meanwhile: a retry that came due during the catch-up joined this attempt, so ask again.
      if (this.client !== c) {
        this.retryLater();
        return;
      }
      this.caughtUp = true;
      this.lostAtMs = undefined;
      this.failures = 0;
    } catch (err) {
      this.o.onError(err as Error);
      if (c && this.client === c) this.client = undefined;
      c?.close().catch(() => undefined);
      this.retryLater();
    }
  }

  /** The connection dropped: reconnect later, and read what was missed then. */
  private lost(c: Listening): void {
    if (this.client !== c) return;
    this.client = undefined;
    this.caughtUp = false;
    c.close().catch(() => undefined);
    this.retryLater();
  }

  private retryLater(): void {
    this.lostAtMs ??= Date.now();
    if (this.closed || this.retryTimer) return;
    const delay = Math.min(10_000, 250 * 2 ** this.failures++) * (0.5 + Math.random() / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, delay);
    this.retryTimer.unref();
  }
}
