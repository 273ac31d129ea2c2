/**
 * The mail worker: sends the messages committed to the mail outbox, after commit, on the shared
 * BackgroundLoop. Messages are leased (another process, or this one after a crash, takes one over
 * once its lease lapses; the Message-ID stays the same), retried on a growing delay, and recorded
 * as failed at once on a permanent refusal (SMTP 5xx) or after two days of trying. Log lines name
 * the message's key and kind, never its recipient or contents.
 */
import { BackgroundLoop } from '../outbox/index.js';
import type { Business } from '../operations/index.js';
import type { MailMessage, Store } from '../store/index.js';
import { MailSendError, type MailAddress, type MailTransport } from './port.js';
import { renderMail } from './render.js';

export interface MailWorkerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface MailWorkerOptions {
  store: Store;
  transport: MailTransport;
  /** The business the messages are from: its latest snapshot, read for each message. */
  business: () => Business;
  /** The From header (read per message: the public URL it may name is known only once the server listens). */
  from: () => MailAddress;
  now: () => number;
  log: MailWorkerLog;
  overrides?: ReadonlyMap<string, string>;
  pollMs?: number;
  /** A leased message returns to the queue after this long (default 2 minutes). */
  leaseMs?: number;
  batch?: number;
}

/** Delay before attempt n+1: 30 s doubling to at most an hour; given up after two days. */
export function mailRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}
const GIVE_UP_MS = 2 * 86_400_000;

export class MailWorker {
  private readonly loop: BackgroundLoop;

  constructor(private readonly o: MailWorkerOptions) {
    this.loop = new BackgroundLoop({ name: 'mail worker', pass: () => this.tick(), log: o.log, pollMs: o.pollMs });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.o.transport.close();
  }

  nudge(): void {
    this.loop.nudge();
  }

  /** One pass over the due messages; resolves when they are sent or put back (tests call it directly). */
  async tick(): Promise<void> {
    const now = this.o.now();
    const due = await this.o.store.transaction((tx) => tx.mail.claimDue(now, this.o.batch ?? 20, now + (this.o.leaseMs ?? 120_000)));
    for (const m of due) await this.send(m);
  }

  private async send(m: MailMessage): Promise<void> {
    const attempts = m.attempts + 1;
    try {
      const mail = renderMail(m, { biz: this.o.business(), from: this.o.from(), overrides: this.o.overrides });
      await this.o.transport.send(mail);
    } catch (err) {
      const now = this.o.now();
      const permanent = err instanceof MailSendError ? err.permanent : !(err instanceof Error && 'code' in err);
      const giveUp = permanent || now - m.created_ms > GIVE_UP_MS;
      const error = err instanceof MailSendError ? err.message : `render or send failed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`;
      this.o.log.warn(giveUp ? 'mail failed for good' : 'mail failed; it will be retried', { mail: m.id.split('|')[0], kind: m.kind, attempts, error });
      await this.o.store.transaction((tx) =>
        tx.mail.finish(m.id, { status: giveUp ? 'failed' : 'queued', attempts, due_ms: now + mailRetryDelayMs(attempts), sent_ms: null, last_error: error }),
      );
      return;
    }
    const now = this.o.now();
    await this.o.store.transaction((tx) => tx.mail.finish(m.id, { status: 'sent', attempts, due_ms: m.due_ms, sent_ms: now, last_error: null }));
    this.o.log.info('mail sent', { mail: m.id.split('|')[0], kind: m.kind });
  }
}
