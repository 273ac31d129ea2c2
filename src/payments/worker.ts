/**
 * The payment worker: calls the payment provider for the jobs committed with a booking (create a
 * checkout, close one, refund) and reports the answers back through the pipeline, as the webhook
 * dispatcher does for the outbox: jobs are leased (another process, or this one after a crash,
 * takes them over once the lease lapses), retried on a growing delay with the same idempotency key
 * (so a retried create makes no second session, a retried refund no second refund), and given up
 * after a day.
 */
import { BackgroundLoop } from '../outbox/index.js';
import type { PaymentJob, Store } from '../store/index.js';
import { operationForPaymentEvents, type Caller, type OperationDef, type PaymentEvent, type Pipeline, type CallScope } from '../operations/index.js';
import { ProviderError, type PaymentProvider } from './port.js';

export interface PaymentWorkerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface PaymentWorkerOptions {
  store: Store;
  provider: PaymentProvider;
  pipeline: Pipeline;
  /** The business whose jobs these are: their answers run as its calls. */
  scope: CallScope;
  now: () => number;
  log: PaymentWorkerLog;
  /** Poll interval when idle (default 1 s); nudges come sooner. */
  pollMs?: number;
  /** A leased job returns to the queue after this long (default 60 s). */
  leaseMs?: number;
  /** Most jobs per pass. */
  batch?: number;
}

/** Delay before attempt n+1: 2 s doubling to at most 10 minutes; a job is given up after 24 hours. */
export function retryDelayMs(attempts: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempts - 1), 600_000);
}
const GIVE_UP_MS = 24 * 3600_000;

/** What closing a checkout answers: nothing to apply to the booking (it was closed in its own transaction). */
interface Closed {
  type: 'checkout_expired_by_us';
  session_id: string;
  status: string;
}

export class PaymentWorker {
  private readonly loop: BackgroundLoop;
  private readonly op: OperationDef;
  private readonly caller: Caller;

  constructor(private readonly o: PaymentWorkerOptions) {
    this.op = operationForPaymentEvents();
    this.caller = { principal: null, profile: null, business: true, actor: `payment_provider:${o.provider.name}` };
    this.loop = new BackgroundLoop({ name: 'payment worker', pass: () => this.tick(), log: o.log, pollMs: o.pollMs });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Something was committed: look soon. */
  nudge(): void {
    this.loop.nudge();
  }

  /** One pass over the due jobs; resolves when they are done (tests call it directly). */
  async tick(): Promise<void> {
    const now = this.o.now();
    const jobs = await this.o.store.transaction((tx) => tx.payments.claimDue(now, this.o.batch ?? 20, now + (this.o.leaseMs ?? 60_000)));
    await Promise.all(jobs.map((j) => this.run(j)));
  }

  private async run(job: PaymentJob): Promise<void> {
    const attempts = job.attempts + 1;
    let result: Record<string, unknown>;
    try {
      const event = await this.call(job);
      result = event as unknown as Record<string, unknown>;
      if (event.type !== 'checkout_expired_by_us') {
        const res = await this.o.pipeline.execute(this.op, { input: { provider: this.o.provider.name, event }, trustedCaller: this.caller, door: 'payments' }, this.o.scope);
        if (!res.ok) throw res.error;
      }
    } catch (err) {
      const now = this.o.now();
      const retryable = !(err instanceof ProviderError) || err.retryable;
      const giveUp = !retryable || now - job.created_ms > GIVE_UP_MS;
      // Stripe keeps a 5xx answer under its idempotency key and replays it: the next try needs a new
      // key (the provider may or may not have acted; a second open session is harmless, see DECISIONS).
      const status = err instanceof ProviderError ? err.status : undefined;
      const retryKey = status !== undefined && status >= 500 ? `${job.id}:r${attempts}` : (job.result?.retry_key as string | undefined);
      const message = err instanceof Error ? err.message : String(err);
      this.o.log.warn(giveUp ? 'payment job failed for good' : 'payment job failed; it will be retried', { job: job.id, kind: job.kind, attempts, error: message });
      await this.o.store.transaction((tx) =>
        tx.payments.finish(job.id, {
          status: giveUp ? 'failed' : 'pending',
          attempts,
          next_attempt_ms: now + retryDelayMs(attempts),
          last_error: message.slice(0, 500),
          result: retryKey ? { retry_key: retryKey } : null,
        }),
      );
      return;
    }
    await this.o.store.transaction((tx) => tx.payments.finish(job.id, { status: 'done', attempts, next_attempt_ms: this.o.now(), last_error: null, result }));
  }

  /** The provider call a job stands for, and its answer as our event. */
  private async call(job: PaymentJob): Promise<PaymentEvent | Closed> {
    const p = job.payload as Record<string, string | number>;
    const key = (job.result?.retry_key as string | undefined) ?? job.id;
    if (job.kind === 'expire_checkout') {
      // The booking already counts the checkout closed: the provider's answer is kept on the job only.
      const s = await this.o.provider.expireCheckout({ key, id: String(p.session_id) });
      return { type: 'checkout_expired_by_us', session_id: s.id, status: s.status };
    }
    if (job.kind === 'checkout') {
      const s = await this.o.provider.createCheckout({
        key,
        booking_id: String(p.booking_id),
        action_id: String(p.action_id),
        amount: Number(p.amount),
        currency: String(p.currency),
        description: String(p.description),
        expires_ms: Number(p.expires_ms),
        success_url: String(p.success_url),
        cancel_url: String(p.cancel_url),
      });
      return { type: 'checkout_created', booking_id: String(p.booking_id), action_id: String(p.action_id), session_id: s.id, url: s.url };
    }
    const r = await this.o.provider.refund({ key, booking_id: String(p.booking_id), payment_ref: String(p.payment_ref), amount: Number(p.amount) });
    return { type: 'refund_result', booking_id: String(p.booking_id), job_id: job.id, payment_ref: String(p.payment_ref), refund_id: r.id, status: r.status };
  }
}
