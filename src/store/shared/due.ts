/**
 * When a business next has background work due, per kind of work, in one statement of indexed
 * MIN() reads (the same SQL on both engines): what a process that does not hold the business loaded
 * must know to wake it in time (`usp-server host serve`'s waker, src/server/hosted-waker.ts).
 * A row leased by a worker still counts as due at its own time: it is in hand, not done.
 */

/** The earliest due instant of each kind of work (epoch ms), null when none is queued. */
export interface DueTimes {
  /** Queued mail (the email channel, the one with a runner), reminders included. */
  mail: number | null;
  /** Outbox events not yet handed out (reminders due later among them). */
  events: number | null;
  /** Webhook deliveries waiting for an attempt. */
  deliveries: number | null;
  /** Payment provider jobs. */
  payments: number | null;
  /** Calendar pushes. */
  pushes: number | null;
  /** Pending bookings and waitlist offers that expire. */
  expiries: number | null;
}

export const NEXT_DUE_SQL = `SELECT
  (SELECT MIN(due_ms) FROM mail_messages WHERE channel = 'email' AND status = 'queued') AS mail,
  (SELECT MIN(due_ms) FROM outbox WHERE status = 'pending') AS events,
  (SELECT MIN(next_attempt_ms) FROM webhook_deliveries WHERE status = 'pending') AS deliveries,
  (SELECT MIN(next_attempt_ms) FROM payment_jobs WHERE status = 'pending') AS payments,
  (SELECT MIN(next_attempt_ms) FROM calendar_push_jobs) AS pushes,
  (SELECT MIN(t) FROM (
    SELECT MIN(expires_at_ms) AS t FROM bookings WHERE status IN ('pending', 'requires_action')
    UNION ALL SELECT MIN(offer_expires_ms) FROM waitlist_entries WHERE status = 'offered'
  ) x) AS expiries`;

type Raw = { [K in keyof DueTimes]: number | string | bigint | null };

/** The statement's one row as numbers (PostgreSQL answers BIGINT as text). */
export function dueTimes(row: Raw | undefined): DueTimes {
  const n = (v: number | string | bigint | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    mail: n(row?.mail),
    events: n(row?.events),
    deliveries: n(row?.deliveries),
    payments: n(row?.payments),
    pushes: n(row?.pushes),
    expiries: n(row?.expiries),
  };
}

/**
 * A store's `nextDue` answer given again from memory while the store wrote nothing since it was read,
 * for at most `maxAgeMs` (what another process commits is seen then). A write counts from its start
 * to its end, so an answer read while one was open is not kept past it.
 */
export class DueCache {
  private writes = 0;
  private last?: { writes: number; at: number; due: DueTimes };

  constructor(private readonly maxAgeMs: number) {}

  /** Runs one write transaction of the store, counted. */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.writes++;
    try {
      return await write();
    } finally {
      this.writes++;
    }
  }

  /** The answer kept, or `read()`'s (then kept). */
  async get(read: () => Promise<DueTimes>): Promise<DueTimes> {
    const kept = this.last;
    if (kept && kept.writes === this.writes && performance.now() - kept.at < this.maxAgeMs) return { ...kept.due };
    const writes = this.writes;
    const at = performance.now();
    const due = await read();
    this.last = { writes, at, due };
    return { ...due };
  }
}
