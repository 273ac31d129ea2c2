/**
 * The LISTEN connections of the event channels (channel.ts): one of its own per channel (a store on a
 * schema of its own, as before), or one per process shared by every channel of the businesses of a
 * keyed schema, which would otherwise hold a connection each.
 */
import pg from 'pg';
import { ident } from './faults.js';

/** Listening on one channel; closing it stops this channel only. */
export interface Listening {
  close(): Promise<void>;
}

/**
 * LISTEN on `name`: each payload to `onPayload`; `onLost` once if the connection is lost after
 * LISTEN succeeded (a failure before that rejects instead).
 */
export type Listen = (name: string, onPayload: (payload: string) => void, onLost: () => void) => Promise<Listening>;

/** A connection of its own for the one channel. */
export function dedicatedListen(
  config: pg.ClientConfig,
  onError: (err: Error) => void,
  o: { emptyPayloads?: boolean } = {},
): Listen {
  return async (name, onPayload, onLost) => {
    const c = new pg.Client(config);
    let live = false;
    const lose = (): void => {
      if (!live) return;
      live = false;
      c.end().catch(() => undefined);
      onLost();
    };
    c.on('notification', (m) => {
      if (m.channel === name && (m.payload || o.emptyPayloads)) onPayload(m.payload ?? '');
    });
    c.on('error', (err) => {
      onError(err);
      lose();
    });
    c.on('end', lose);
    try {
      await c.connect();
      await c.query(`LISTEN ${ident(name)}`);
    } catch (err) {
      c.end().catch(() => undefined);
      throw err;
    }
    live = true;
    return {
      close: async () => {
        live = false;
        await c.end().catch(() => undefined);
      },
    };
  };
}

/**
 * One connection LISTENing on many channels. Lost, every channel on it is told (each reconnects with
 * its own backoff, and the first to do so opens the connection again); it is ended when its last
 * channel closes.
 */
export class SharedListener {
  private client?: Promise<pg.Client>;
  /** The connection `client` resolved to, while it is live. */
  private connected?: pg.Client;
  private readonly channels = new Map<string, { onPayload: (p: string) => void; onLost: () => void }>();
  /**
   * LISTEN and UNLISTEN one at a time: stores open and close at once (a hosting process loads many),
   * and a query on a client still busy with another is deprecated by pg (refused from pg 9).
   */
  private serial: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onError: (err: Error) => void,
  ) {}

  readonly listen: Listen = async (name, onPayload, onLost) => {
    const opening = (this.client ??= this.open());
    const c = await opening;
    const entry = { onPayload, onLost };
    this.channels.set(name, entry);
    try {
      await this.inTurn(() => c.query(`LISTEN ${ident(name)}`));
    } catch (err) {
      if (this.channels.get(name) === entry) this.channels.delete(name);
      throw err;
    }
    return {
      close: async () => {
        if (this.channels.get(name) !== entry) return;
        this.channels.delete(name);
        if (this.channels.size === 0 && this.client === opening) {
          this.client = undefined;
          this.connected = undefined;
          await c.end().catch(() => undefined);
        } else await this.inTurn(() => c.query(`UNLISTEN ${ident(name)}`)).catch(() => undefined);
      },
    };
  };

  private inTurn<T>(query: () => Promise<T>): Promise<T> {
    const turn = this.serial.then(query, query);
    this.serial = turn.catch(() => undefined);
    return turn;
  }

  /** Every channel let go and the connection ended (the last store of the process closed). */
  async end(): Promise<void> {
    this.channels.clear();
    const c = this.client;
    this.client = undefined;
    this.connected = undefined;
    if (c) await (await c.catch(() => undefined))?.end().catch(() => undefined);
  }

  private async open(): Promise<pg.Client> {
    const c = new pg.Client(this.config);
    let live = false;
    const lose = (): void => {
      if (!live) return;
      live = false;
      if (this.connected === c) {
        this.connected = undefined;
        this.client = undefined;
      }
      c.end().catch(() => undefined);
      const lost = [...this.channels.values()];
      this.channels.clear();
      for (const ch of lost) ch.onLost();
    };
    c.on('notification', (m) => {
      const ch = this.channels.get(m.channel);
      if (ch && m.payload) ch.onPayload(m.payload);
    });
    c.on('error', (err) => {
      this.onError(err);
      lose();
    });
    c.on('end', lose);
    try {
      await c.connect();
    } catch (err) {
      this.client = undefined;
      c.end().catch(() => undefined);
      throw err;
    }
    live = true;
    this.connected = c;
    return c;
  }
}
