/**
 * Mail, the first channel of the notification outbox: its provider renders each message committed
 * to the outbox on the `email` channel and hands it to the transport (SMTP, a folder of .eml files),
 * and the mail worker is the shared leased runner over that channel (src/outbox/runner.ts): messages
 * are leased (another process, or this one after a crash, takes one over once its lease lapses; the
 * Message-ID stays the same), retried on a growing delay, and recorded as failed at once on a
 * permanent refusal (SMTP 5xx) or after two days of trying. Log lines name the message's key and
 * kind, never its recipient or contents.
 */
import {
  LeasedRunner,
  notificationQueue,
  notificationRetryDelayMs,
  type NotificationProvider,
} from '../outbox/index.js';
import type { Business } from '../operations/index.js';
import { EMAIL_CHANNEL, type MailMessage, type Store } from '../store/index.js';
import { MailSendError, type MailAddress, type MailTransport } from './port.js';
import { renderMail } from './render.js';

export interface MailWorkerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface MailProviderOptions {
  transport: MailTransport;
  /** The business the messages are from: its latest snapshot, read for each message. */
  business: () => Business;
  /** The From header (read per message: the public URL it may name is known only once the server listens). */
  from: () => MailAddress;
  overrides?: ReadonlyMap<string, string>;
}

export interface MailWorkerOptions extends MailProviderOptions {
  store: Store;
  now: () => number;
  log: MailWorkerLog;
  pollMs?: number;
  /** A leased message returns to the queue after this long (default 2 minutes). */
  leaseMs?: number;
  batch?: number;
}

/** Delay before attempt n+1: 30 s doubling to at most an hour; given up after two days. */
export const mailRetryDelayMs = notificationRetryDelayMs;

/** The `email` channel's provider: render the message with the business's latest snapshot, send it with the transport. */
export function mailProvider(o: MailProviderOptions): NotificationProvider {
  return {
    channel: EMAIL_CHANNEL,
    noun: 'mail',
    async send(m: MailMessage) {
      await o.transport.send(renderMail(m, { biz: o.business(), from: o.from(), overrides: o.overrides }));
    },
    failure(err) {
      // A relay's refusal says whether it is for good; an error without a code (a template that
      // cannot render) will not mend by itself; a network error (it has a code) may.
      if (err instanceof MailSendError) return { permanent: err.permanent, error: err.message };
      const permanent = !(err instanceof Error && 'code' in err);
      return {
        permanent,
        error: `render or send failed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
      };
    },
    close: () => o.transport.close(),
  };
}

/** The mail worker: the leased runner over the notification outbox's `email` channel. */
export class MailWorker extends LeasedRunner<MailMessage, void> {
  constructor(o: MailWorkerOptions) {
    super(() => notificationQueue(mailProvider(o), { leaseMs: o.leaseMs, batch: o.batch }), {
      store: o.store,
      now: o.now,
      log: o.log,
      pollMs: o.pollMs,
    });
  }
}
