/**
 * A hosted business's health as its operator sees it (the operator's desk, src/server/operator-desk.ts):
 * what the business's own admin API computes, run through the pipeline as the business itself with
 * the actor `operator` (its figures for today, its calendar sync), and its mail outbox.
 */
import type { Caller } from '../core/context.js';
import type { OperationDef } from '../core/define.js';
import type { Pipeline } from '../core/pipeline.js';
import type { CallScope } from '../core/scope.js';
import { listCalendarSync } from '../calendars/list-calendar-sync.js';
import { getDayFigures } from './get-day-figures.js';

export interface BusinessHealth {
  bookings_today: number;
  failing_webhook_deliveries: number;
  mail_failed: number;
  mail_queued: number;
  stale_calendars: number;
}

export async function businessHealth(pipeline: Pipeline, scope: CallScope, caller: Caller): Promise<BusinessHealth> {
  const call = async (op: OperationDef) => {
    const res = await pipeline.execute(op, { input: {}, trustedCaller: { ...caller }, door: 'operator' }, scope);
    if (!res.ok) throw new Error(`${op.name}: ${res.error.message}`);
    return res.data as Record<string, any>;
  };
  const figures = (await call(getDayFigures)).figures;
  const feeds: Array<{ stale: boolean }> = (await call(listCalendarSync)).feeds;
  const mail = await scope.store.read((tx) => tx.mail.recent(500));
  return {
    bookings_today: figures.bookings,
    failing_webhook_deliveries: figures.failed_deliveries,
    mail_failed: mail.filter((m) => m.status === 'failed').length,
    mail_queued: mail.filter((m) => m.status === 'queued').length,
    stale_calendars: feeds.filter((f) => f.stale).length,
  };
}
