/**
 * The payment worker: calls the payment provider for the jobs committed with a booking (create a
 * checkout, close one, refund) and reports the answers back through the pipeline. It is the shared
 * leased runner (src/outbox/runner.ts) over the payment jobs: jobs are leased (another process, or
 * this one after a crash, takes them over once the lease lapses), retried on a growing delay with
 * the same idempotency key (so a retried create makes no second session, a retried refund no second
 * refund), and given up after a day. This file is the queue's port: the provider call, its answer
 * through the pipeline, and what a job's end records.
 */
import { LeasedRunner, backoff, type QueuePort } from '../outbox/index.js';
import type { PaymentJob, Store } from '../store/index.js';
import {
  operationForPaymentEvents,
  type Caller,
  type OperationDef,
  type PaymentEvent,
  type Pipeline,
  type CallScope,
} from '../operations/index.js';
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

/** The payment jobs as a queue of the shared leased runner: each job is a provider call whose answer runs through the pipeline. */
function paymentJobQueue(o: PaymentWorkerOptions): QueuePort<PaymentJob, Record<string, unknown>> {
  const op: OperationDef = operationForPaymentEvents();
  const caller: Caller = {
    principal: null,
    profile: null,
    business: true,
    actor: `payment_provider:${o.provider.name}`,
  };
  return {
    name: 'payment worker',
    noun: 'payment job',
    leaseMs: o.leaseMs ?? 60_000,
    batch: o.batch ?? 20,
    // Every job of a pass at once: each is one provider call, and they are for different bookings.
    concurrency: o.batch ?? 20,
    retryAt: backoff(retryDelayMs, GIVE_UP_MS),
    describe: (job) => ({ job: job.id, kind: job.kind }),
    claim: (tx, now, limit, leaseUntilMs) => tx.payments.claimDue(now, limit, leaseUntilMs),
    async attempt(job) {
      const event = await callProvider(o.provider, job);
      if (event.type !== 'checkout_expired_by_us') {
        const res = await o.pipeline.execute(
          op,
          { input: { provider: o.provider.name, event }, trustedCaller: caller, door: 'payments' },
          o.scope,
        );
        if (!res.ok) throw res.error;
      }
      return event as unknown as Record<string, unknown>;
    },
    failure: (err) => ({
      permanent: err instanceof ProviderError && !err.retryable,
      error: err instanceof Error ? err.message : String(err),
    }),
    done: (tx, job, result, end) =>
      tx.payments.finish(job.id, {
        status: 'done',
        attempts: end.attempts,
        next_attempt_ms: end.now,
        last_error: null,
        result,
      }),
    failed(tx, job, end) {
      // Stripe keeps a 5xx answer under its idempotency key and replays it: the next try needs a new
      // key (the provider may or may not have acted; a second open session is harmless, see DECISIONS).
      const status = end.cause instanceof ProviderError ? end.cause.status : undefined;
      const retryKey =
        status !== undefined && status >= 500
          ? `${job.id}:r${end.attempts}`
          : (job.result?.retry_key as string | undefined);
      return tx.payments.finish(job.id, {
        status: end.giveUp ? 'failed' : 'pending',
        attempts: end.attempts,
        next_attempt_ms: end.retryAtMs,
        last_error: end.error.slice(0, 500),
        result: retryKey ? { retry_key: retryKey } : null,
      });
    },
  };
}

/** The payment worker: the shared leased runner over the payment jobs. */
export class PaymentWorker extends LeasedRunner<PaymentJob, Record<string, unknown>> {
  constructor(o: PaymentWorkerOptions) {
    super(() => paymentJobQueue(o), { store: o.store, now: o.now, log: o.log, pollMs: o.pollMs });
  }
}

/** The provider call a job stands for, and its answer as our event. */
async function callProvider(provider: PaymentProvider, job: PaymentJob): Promise<PaymentEvent | Closed> {
  const p = job.payload as Record<string, string | number>;
  const key = (job.result?.retry_key as string | undefined) ?? job.id;
  if (job.kind === 'expire_checkout') {
    // The booking already counts the checkout closed: the provider's answer is kept on the job only.
    const s = await provider.expireCheckout({ key, id: String(p.session_id) });
    return { type: 'checkout_expired_by_us', session_id: s.id, status: s.status };
  }
  if (job.kind === 'checkout') {
    const s = await provider.createCheckout({
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
    return {
      type: 'checkout_created',
      booking_id: String(p.booking_id),
      action_id: String(p.action_id),
      session_id: s.id,
      url: s.url,
    };
  }
  const r = await provider.refund({
    key,
    booking_id: String(p.booking_id),
    payment_ref: String(p.payment_ref),
    amount: Number(p.amount),
  });
  return {
    type: 'refund_result',
    booking_id: String(p.booking_id),
    job_id: job.id,
    payment_ref: String(p.payment_ref),
    refund_id: r.id,
    status: r.status,
  };
}
