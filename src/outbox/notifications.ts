/**
 * The notification outbox as a leased queue: one runner per channel, each leasing its own channel's
 * messages and handing each to that channel's provider. Mail is the first channel (src/mail's
 * provider renders the message and gives it to the SMTP or folder transport); an SMS channel is one
 * more provider (`channel: 'sms'`) and one more runner, and the rows it sends are queued with
 * `channel: 'sms'` by the event channel that decides them (docs/ARCHITECTURE.md, "Channels").
 */
import type { MailMessage, Tx } from '../store/index.js';
import { backoff, type Failure, type QueuePort } from './runner.js';

/** One channel's way out: what sends a message queued on it. */
export interface NotificationProvider {
  /** The channel whose messages it sends (`email`). */
  readonly channel: string;
  /** What a log line calls one of its messages (`mail`). */
  readonly noun: string;
  /** Send one message; throws when it was not sent. */
  send(message: MailMessage): Promise<void>;
  /** Whether a failure of `send` is for good (a relay's 5xx) and how it reads (never the recipient or contents). */
  failure(err: unknown): Failure;
  close?(): Promise<void>;
}

/** Delay before attempt n+1 of a notification: 30 s doubling to at most an hour. */
export function notificationRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** A notification is given up after two days of trying. */
const GIVE_UP_MS = 2 * 86_400_000;

export interface NotificationQueueOptions {
  /** A leased message returns to the queue after this long (default 2 minutes). */
  leaseMs?: number;
  /** Most messages per pass (default 20). */
  batch?: number;
}

/** The queue port of one channel of the notification outbox, sending through `provider`, one message at a time. */
export function notificationQueue(
  provider: NotificationProvider,
  o: NotificationQueueOptions = {},
): QueuePort<MailMessage, void> {
  return {
    name: `${provider.noun} worker`,
    noun: provider.noun,
    leaseMs: o.leaseMs ?? 120_000,
    batch: o.batch ?? 20,
    concurrency: 1,
    retryAt: backoff(notificationRetryDelayMs, GIVE_UP_MS),
    doneMessage: `${provider.noun} sent`,
    // The message's cause, never its recipient (the key's last part).
    describe: (m) => ({ [provider.noun]: m.id.split('|')[0], kind: m.kind }),
    claim: (tx: Tx, now, limit, leaseUntilMs) => tx.mail.claimDue(now, limit, leaseUntilMs, provider.channel),
    attempt: (m) => provider.send(m),
    failure: (err) => provider.failure(err),
    done: (tx, m, _r, end) =>
      tx.mail.finish(m.id, {
        status: 'sent',
        attempts: end.attempts,
        due_ms: m.due_ms,
        sent_ms: end.now,
        last_error: null,
      }),
    failed: (tx, m, end) =>
      tx.mail.finish(m.id, {
        status: end.giveUp ? 'failed' : 'queued',
        attempts: end.attempts,
        due_ms: end.retryAtMs,
        sent_ms: null,
        last_error: end.error,
      }),
    close: async () => {
      await provider.close?.();
    },
  };
}
