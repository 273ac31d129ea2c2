/**
 * When a composed server next has background work due (`UspServer.nextDueAt`): the earliest of what
 * its store holds queued (shared/due.ts: mail, outbox events, webhook deliveries, payment jobs,
 * calendar pushes, expiring bookings and offers), each counted only when the worker that does it
 * runs here (a queue nobody drains is not a reason to wake), its calendars' next poll, and a
 * retention sweep at least daily. `usp-server host serve` records it when it closes a business and
 * wakes the business then (hosted-waker.ts).
 */
import type { Clock } from '../operations/index.js';
import type { Store } from '../store/index.js';
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

/** The earliest instant (epoch ms, on the server's clock) at which something here is due. */
export async function nextDueAt(p: DueParts): Promise<number> {
  const now = p.clock.now();
  const d = await p.store.nextDue();
  const webhooks = p.dispatcher.isRunning;
  const times = [
    now + RETENTION_SWEEP_MS,
    p.mailWorker?.isRunning ? d.mail : null,
    webhooks ? d.events : null,
    webhooks ? d.deliveries : null,
    p.paymentWorker?.isRunning ? d.payments : null,
    p.calendars?.pusher.isRunning ? d.pushes : null,
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
  const take = (kind: string, at: number | null, start: () => void) => {
    if (at === null) return;
    if (at > now) later.push(at);
    else {
      start();
      ran.push(kind);
    }
  };
  const { dispatcher, mailWorker, paymentWorker, calendars } = p;
  if (dispatcher.isRunning) take('webhooks', earliest(d.events, d.deliveries), () => dispatcher.nudge());
  if (mailWorker?.isRunning) take('mail', d.mail, () => mailWorker.nudge());
  if (paymentWorker?.isRunning) take('payments', d.payments, () => paymentWorker.nudge());
  if (calendars?.pusher.isRunning) take('calendar pushes', d.pushes, () => calendars.pusher.nudge());
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
