/**
 * When a composed server next has background work due (`UspServer.nextDueAt`): the earliest of what
 * its store holds queued (shared/due.ts: mail, outbox events, webhook deliveries, payment jobs,
 * calendar pushes, expiring bookings and offers), each counted only when the worker that does it
 * runs here (a queue nobody drains is not a reason to wake), its calendars' next poll, and a
 * retention sweep at least daily. `usp-server host serve` records it when it closes a business and
 * wakes the business then (hosted-waker.ts).
 */
import type { Clock } from '../operations/index.js';
import type { DueTimes, Store } from '../store/index.js';
import type { WebhookDispatcher } from '../webhooks/index.js';
import type { MailWorker } from '../mail/index.js';
import type { PaymentWorker } from '../payments/index.js';
import type { CalendarWiring } from './calendar-wiring.js';

/** A business with nothing queued is still swept this often (retention, lapsed claims and credentials). */
export const RETENTION_SWEEP_MS = 86_400_000;

/** Asked by a work hub (`runDue`), a loaded business is swept at least this often (its purges), and when an expiry is due. */
export const HUB_SWEEP_MS = 600_000;

export interface DueParts {
  store: Store;
  clock: Clock;
  dispatcher: WebhookDispatcher;
  mailWorker?: MailWorker;
  paymentWorker?: PaymentWorker;
  calendars?: CalendarWiring;
  /** The periodic sweep runs (it expires pending bookings and offers). */
  sweeps: boolean;
}

/** Each running worker's queue: when its work is next due (null: none queued), and how to wake it. */
type WorkerDue = { kind: string; at: number | null; nudge: () => void };

function workersDue(p: DueParts, d: DueTimes): WorkerDue[] {
  const { dispatcher, mailWorker, paymentWorker, calendars } = p;
  return [
    dispatcher.isRunning && { kind: 'webhooks', at: earliest(d.events, d.deliveries), nudge: () => dispatcher.nudge() },
    mailWorker?.isRunning && { kind: 'mail', at: d.mail, nudge: () => mailWorker.nudge() },
    paymentWorker?.isRunning && { kind: 'payments', at: d.payments, nudge: () => paymentWorker.nudge() },
    calendars?.pusher.isRunning && { kind: 'calendar pushes', at: d.pushes, nudge: () => calendars.pusher.nudge() },
  ].filter((w): w is WorkerDue => Boolean(w));
}

/** The earliest instant (epoch ms, on the server's clock) at which something here is due. */
export async function nextDueAt(p: DueParts): Promise<number> {
  const d = await p.store.nextDue();
  const times = [
    p.clock.now() + RETENTION_SWEEP_MS,
    ...workersDue(p, d).map((w) => w.at),
    p.sweeps ? d.expiries : null,
    p.calendars?.nextPollAt(),
  ];
  return Math.min(...times.filter((t): t is number => typeof t === 'number'));
}

/** The sweep a work hub runs for a business: when it last ran (its clock), and running it. */
export interface HubSweep {
  lastMs: number;
  run(): Promise<void>;
}

/**
 * A work hub's ask (work-hub.ts, `UspServer.runDue`): nudge each running worker whose work is due
 * now, sweep when an expiry is due or the last sweep is `HUB_SWEEP_MS` old, and say when the rest is
 * next due. Its calendars' polls keep their own timer (one per business, every few minutes).
 */
export async function runDue(p: DueParts, sweep: HubSweep): Promise<{ ran: string[]; nextAt: number }> {
  const now = p.clock.now();
  const d = await p.store.nextDue();
  const ran: string[] = [];
  const later: number[] = [now + RETENTION_SWEEP_MS];
  for (const w of workersDue(p, d)) {
    if (w.at === null) continue;
    if (w.at > now) later.push(w.at);
    else {
      w.nudge();
      ran.push(w.kind);
    }
  }
  if (p.sweeps) {
    const swept = sweep.lastMs + HUB_SWEEP_MS;
    if ((d.expiries !== null && d.expiries <= now) || swept <= now) {
      sweep.lastMs = now;
      await sweep.run();
      ran.push('sweep');
    } else later.push(Math.min(swept, d.expiries ?? swept));
  }
  return { ran, nextAt: Math.min(...later) };
}

const earliest = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);
