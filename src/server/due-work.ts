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
