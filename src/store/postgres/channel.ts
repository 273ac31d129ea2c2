/**
 * LISTEN/NOTIFY between the processes that share one database: each announces the outbox sequences it
 * dispatched, and a dropped LISTEN connection reconnects with backoff (listen-connection.ts) and catches up
 * on what it missed.
 */
import type pg from 'pg';
import type { EventChannel } from '../port.js';
import { sleep } from './faults.js';
import { ListenConnection } from './listen-connection.js';
import type { Listen } from './listen.js';

/** The LISTEN/NOTIFY channel; `ready()` resolves once this process is listening (tests). */
export interface PostgresEventChannel extends EventChannel {
  ready(): Promise<void>;
}

/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD = 7900;

export class PgChannel implements PostgresEventChannel {
  private readonly listeners = new Set<(seqs: number[]) => void>();
  private readonly listen: ListenConnection;
  /** Highest sequence announced to our listeners; -1 until the first connection reads where the outbox stands. */
  private lastSeq = -1;
  /** Recently announced sequences (a catch-up and a late notification may name the same one). */
  private readonly seen = new Set<number>();
  private closed = false;

  constructor(
    config: pg.ClientConfig,
    private readonly pool: pg.Pool,
    readonly name: string,
    private readonly onError: (err: Error) => void,
    /** How the outbox is read outside a transaction (a store keyed by business sets the business first). */
    private readonly read: (text: string, values: unknown[]) => Promise<pg.QueryResult> = (t, v) => pool.query(t, v),
    /** Where it LISTENs: a connection of its own unless given one shared (businesses of a keyed schema). */
    listen?: Listen,
  ) {
    this.listen = new ListenConnection({
      config,
      listen,
      channel: name,
      onNotify: (payload) => {
        const seqs = payload
          .split(',')
          .map(Number)
          .filter((n) => Number.isSafeInteger(n));
        if (seqs.length > 0) this.announce(seqs);
      },
      onListening: (lostAtMs) => this.catchUp(lostAtMs),
      onError,
    });
  }

  async publish(seqs: readonly number[]): Promise<void> {
    let chunk = '';
    for (const s of seqs) {
      const part = String(s);
      if (chunk && chunk.length + part.length + 1 > MAX_PAYLOAD) {
        await this.pool.query('SELECT pg_notify($1, $2)', [this.name, chunk]);
        chunk = '';
      }
      chunk = chunk ? `${chunk},${part}` : part;
    }
    if (chunk) await this.pool.query('SELECT pg_notify($1, $2)', [this.name, chunk]);
  }

  subscribe(listener: (seqs: number[]) => void): () => void {
    this.listeners.add(listener);
    void this.listen.start();
    return () => {
      this.listeners.delete(listener);
    };
  }

  async ready(): Promise<void> {
    for (;;) {
      if (this.closed) throw new Error('channel is closed');
      if (this.listen.listening) return;
      await this.listen.start();
      if (!this.listen.listening) await sleep(50);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listen.close();
  }

  /** Hand sequences not announced before to the listeners. */
  private announce(seqs: readonly number[]): void {
    const fresh = seqs.filter((n) => !this.seen.has(n));
    if (fresh.length === 0) return;
    for (const n of fresh) {
      this.seen.add(n);
      if (n > this.lastSeq) this.lastSeq = n;
    }
    // Forget the oldest (a Set iterates in insertion order).
    for (const n of this.seen) {
      if (this.seen.size <= SEEN_KEPT) break;
      this.seen.delete(n);
    }
    for (const l of [...this.listeners]) {
      try {
        l(fresh);
      } catch (err) {
        this.onError(err as Error);
      }
    }
  }

  /**
   * Listening (again): what was dispatched before is read from the outbox itself (through the pool: the
   * LISTEN connection only ever listens). The first time, only where the outbox stands.
   */
  private async catchUp(lostAtMs: number | undefined): Promise<void> {
    if (this.lastSeq < 0) {
      const r = await this.read(`SELECT COALESCE(MAX(seq), 0) AS m FROM outbox WHERE status = 'dispatched'`, []);
      this.lastSeq = Math.max(this.lastSeq, r.rows[0]?.m ?? 0);
      return;
    }
    // What other processes (or this one) dispatched while we were not listening: everything after the
    // last sequence we announced, and anything that fell due since we lost the connection (a reminder
    // dispatched late carries an older sequence).
    const since = (lostAtMs ?? Date.now()) - CATCH_UP_DUE_MARGIN_MS;
    const r = await this.read(
      `SELECT seq FROM outbox WHERE status = 'dispatched' AND (seq > $1 OR due_ms >= $2) ORDER BY seq LIMIT ${CATCH_UP_LIMIT}`,
      [this.lastSeq, since],
    );
    this.announce(r.rows.map((x) => x.seq));
  }
}

/** Sequences remembered to drop a duplicate announcement. */
const SEEN_KEPT = 10_000;
/** Most events one catch-up announces. */
const CATCH_UP_LIMIT = 5000;
/** A catch-up also takes events due up to this long before the connection was lost. */
const CATCH_UP_DUE_MARGIN_MS = 60_000;
