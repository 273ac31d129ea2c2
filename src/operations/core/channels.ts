/**
 * Event channels: what leaves the process because a transaction committed, registered by the
 * modules that own it rather than named by the pipeline. A channel may write its own rows in the
 * transaction that raised the events (the mail outbox's messages), and may be told once that
 * transaction has committed (to wake its worker: the webhook dispatcher, the mail and payment
 * runners, the calendar pusher). The pipeline and the sweeper hand every committed write to the
 * scope's channels and name none of them; a read commits nothing and tells nobody.
 */
import type { OutboxEvent, Tx } from '../../store/index.js';
import type { Business } from '../business.js';
import type { Logger } from './logger.js';

/** What a transaction raised, as an in-transaction writer sees it. */
export interface RaisedInTransaction {
  /** The business the transaction ran for; absent for a role with none (the registry). */
  readonly biz: Business | undefined;
  /** The events the transaction raised, already in its outbox (never empty). */
  readonly events: readonly OutboxEvent[];
  readonly now: number;
  /** Bookings the transaction created, when its caller said (a booking created here has no stored choice of its own yet). */
  readonly created?: ReadonlySet<string>;
}

export interface EventChannel {
  /** Names the channel in log lines ("mail", "payments", "webhooks"). */
  readonly name: string;
  /** In the transaction that raised `events`, after their outbox rows: write this channel's rows in it. */
  write?(tx: Tx, raised: RaisedInTransaction): Promise<void>;
  /**
   * A write transaction committed (`events` may be empty: a handler may have queued a job without an
   * event): wake this channel's worker. Never called for a read or a replayed answer.
   */
  committed?(events: readonly OutboxEvent[]): void;
  /**
   * The transaction `write` wrote in for `events` did not commit (it failed, or runs again with the same
   * array): forget what `write` kept for `committed` (the webhooks' deliveries leased in it).
   */
  rolledBack?(events: readonly OutboxEvent[]): void;
}

/** The channels of one scope, in the order they were registered. */
export class EventChannels {
  private readonly list: EventChannel[] = [];

  constructor(private readonly log?: Logger) {}

  /** Add a channel (composition time); returns the registry, so registrations chain. */
  register(channel: EventChannel): this {
    if (this.list.some((c) => c.name === channel.name))
      throw new Error(`event channel ${channel.name} is registered twice`);
    this.list.push(channel);
    return this;
  }

  /** The registered channels' names, in order. */
  get names(): string[] {
    return this.list.map((c) => c.name);
  }

  /** Every channel writes its rows for `events` in `tx` (nothing when no event was raised). */
  async write(tx: Tx, raised: RaisedInTransaction): Promise<void> {
    if (raised.events.length === 0) return;
    for (const c of this.list) if (c.write) await c.write(tx, raised);
  }

  /** Tell every channel a write committed, each on its own: one that throws is logged and the others still hear. */
  committed(events: readonly OutboxEvent[]): void {
    for (const c of this.list) {
      try {
        c.committed?.(events);
      } catch (err) {
        this.log?.error('event channel failed after commit', { channel: c.name, error: String(err) });
      }
    }
  }

  /** Tell every channel the transaction that wrote for `events` did not commit (each on its own, as above). */
  rolledBack(events: readonly OutboxEvent[]): void {
    for (const c of this.list) {
      try {
        c.rolledBack?.(events);
      } catch (err) {
        this.log?.error('event channel failed after a rollback', { channel: c.name, error: String(err) });
      }
    }
  }
}
