/**
 * Fair workers across hosted businesses (issue 39, item 4): one business whose platform's webhook
 * endpoint hangs, with a backlog of deliveries, delays neither another business's webhooks nor its
 * mail. Each hosted business's dispatcher and mail runner are its own, started by the process's one
 * scheduler (work-hub.ts), so a backlog stays the business's own. At 10,000 deliveries, with expiries
 * and reminders: test/server/hosting-workers.test.ts. The same for businesses that are not loaded,
 * woken by the deployment when their work is due: test/server/hosting-wake.test.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostCall } from '../support/host-fetch.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { BUYER, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { RunningClock } from '../webhooks/helpers.js';
import { NORD, SALON, deployHosting, mailIn, undeploy, type Deployment } from '../support/hosting.js';

const BACKLOG = 12;

let d: Deployment;
let dir: string;
let port: string;
let profiles: ProfileServer;
let stuck: WebhookReceiver;
let healthy: WebhookReceiver;

beforeAll(async () => {
  profiles = await startProfileServer();
  [stuck, healthy] = [await startWebhookReceiver(), await startWebhookReceiver()];
  stuck.setDefault('/hooks', 'hang');
  d = await deployHosting({
    server: {
      clock: new RunningClock(TEST_NOW),
      webhooks: { timeoutMs: 30_000, pollMs: 25, retry: { firstRetryMs: 50, maxRetries: 3, maxTotalMs: 60_000 } },
    },
    serverFor: (b, dir) => ({ mail: mailIn(b, dir) }),
    prefix: 'usp-hosting-fair-',
  });
  ({ dir, port } = d);
}, 60_000);

afterAll(async () => {
  await stuck?.close();
  await healthy?.close();
  await undeploy(d);
  await profiles?.close();
});

async function book(b: typeof SALON, profile: string, n: number): Promise<string> {
  const agent = { 'USP-Agent': `profile="${profile}"` };
  const base = `http://${b.host}:${port}`;
  const q = await hostCall(`${base}/availability/query`, {
    method: 'POST',
    headers: agent,
    body: { service_id: b.service, start_date: day(n), end_date: day(n), limit: 1 },
  });
  expect(q.status, q.text).toBe(200);
  const r = await hostCall(`${base}/bookings`, {
    method: 'POST',
    headers: agent,
    body: { service_id: b.service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.booking.id;
}

const mailOf = (id: string) => {
  const folder = join(dir, 'mail', id);
  return existsSync(folder) ? readdirSync(folder) : [];
};

describe('fair workers across hosted businesses', () => {
  test("a business whose webhook endpoint hangs, with a backlog, delays neither another's webhooks nor its mail", async () => {
    const hangs = profiles.addProfile('/platforms/hangs.json', { webhook_url: stuck.url('/hooks') });
    const answers = profiles.addProfile('/platforms/answers.json', { webhook_url: healthy.url('/hooks') });
    for (let i = 0; i < BACKLOG; i++) await book(SALON, hangs, 2 + (i % 5));
    // The salon's deliveries are open and unanswered.
    await stuck.waitFor((r) => r.length >= 1, 5_000, "the salon's first delivery");
    expect(stuck.requests().every((r) => r.answered === null)).toBe(true);
    const started = performance.now();
    const id = await book(NORD, answers, 3);
    await healthy.waitFor((r) => r.some((x) => x.json?.booking_id === id), 3_000, "Nord's booking.confirmed");
    await waitFor(() => mailOf(NORD.id).length > 0, 3_000, "Nord's confirmation mail");
    // Both well inside the salon's 30 s delivery timeout, while its requests are still open.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(stuck.requests().every((r) => r.answered === null)).toBe(true);
  });
});
