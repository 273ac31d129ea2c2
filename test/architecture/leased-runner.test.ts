/**
 * One runner for every leased queue (docs/ARCHITECTURE.md, "src/outbox/"): the mail worker, the
 * payment worker, the webhook dispatcher and the calendar push worker are the shared LeasedRunner
 * over their queue's port, and no worker runs a loop of its own. The calendar poller is the one
 * other user of the loop: it leases nothing (it reads feeds on a timer).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeasedRunner } from '../../src/outbox/index.js';
import { MailWorker } from '../../src/mail/index.js';
import { PaymentWorker } from '../../src/payments/index.js';
import { WebhookDispatcher } from '../../src/webhooks/index.js';
import { CalendarPushWorker } from '../../src/calendars/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('every leased queue runs on the one LeasedRunner', () => {
  it('the four queue workers are the runner over a port', () => {
    for (const worker of [MailWorker, PaymentWorker, WebhookDispatcher, CalendarPushWorker])
      expect(worker.prototype, worker.name).toBeInstanceOf(LeasedRunner);
  });

  it('only the runner and the calendar poller start a BackgroundLoop', () => {
    const users = walk(join(ROOT, 'src'))
      .filter((f) => /new BackgroundLoop\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f).split('\\').join('/'))
      .sort();
    expect(users).toEqual(['src/calendars/poller.ts', 'src/outbox/runner.ts']);
  });
});
