/**
 * One scheduler of background work per process (issue 39, item 4; src/server/work-hub.ts): on `host
 * serve`, no loaded business's worker polls by itself; the process's work hub asks each business
 * what is due (one statement) at its next due instant, or once per idle interval, and starts the
 * workers whose work has come. A business with 10,000 webhook deliveries to endpoints that never
 * answer keeps its own workers busy, never the hub: another business's confirmation, its reminder
 * when due and its pending booking's expiry all come on time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { UspServer } from '../../src/server/options.js';
import { hostCall } from '../support/host-fetch.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { BUYER, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { RunningClock } from '../webhooks/helpers.js';
import { NORD, SALON, deployHosting, mailIn, undeploy, type Biz, type Deployment } from '../support/hosting.js';

const DAY = 86_400_000;
const BACKLOG = 10_000;
const IDLE_MS = 300;

let d: Deployment;
let clock: RunningClock;
let profiles: ProfileServer;
let stuck: WebhookReceiver;
let healthy: WebhookReceiver;

beforeAll(async () => {
  profiles = await startProfileServer();
  [stuck, healthy] = [await startWebhookReceiver(), await startWebhookReceiver()];
  // 64 endpoints that never answer: as many lanes as the dispatcher runs, and more.
  for (let i = 0; i < 64; i++) stuck.setDefault(`/hooks/${i}`, 'hang');
  clock = new RunningClock(TEST_NOW);
  d = await deployHosting({
    server: {
      clock,
      // Each worker's own poll, which the hub's deployment overrides: none polls.
      webhooks: { timeoutMs: 30_000, pollMs: 25, retry: { firstRetryMs: 50, maxRetries: 3, maxTotalMs: 60_000 } },
    },
    serverFor: (b, dir) => ({ mail: mailIn(b, dir) }),
    workers: { idleMs: IDLE_MS, busyMs: 200 },
    prefix: 'usp-hosting-workers-',
  });
}, 60_000);

afterAll(async () => {
  await stuck?.close();
  await healthy?.close();
  await undeploy(d);
  await profiles?.close();
});

const agent = (profile: string) => ({ 'USP-Agent': `profile="${profile}"` });

async function book(b: Biz, service: string, profile: string, n: number) {
  const base = d.url(b);
  const q = await hostCall(`${base}/availability/query`, {
    method: 'POST',
    headers: agent(profile),
    body: { service_id: service, start_date: day(n), end_date: day(n), limit: 1 },
  });
  expect(q.status, q.text).toBe(200);
  const r = await hostCall(`${base}/bookings`, {
    method: 'POST',
    headers: agent(profile),
    body: { service_id: service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.booking;
}

const serverOf = async (b: Biz): Promise<UspServer> =>
  (await d.hosting.pool.peek(b.id, async (s) => s)) ?? expect.fail(`${b.id} is not loaded`);

const mailKinds = (b: Biz) => {
  const folder = join(d.dir, 'mail', b.id);
  return existsSync(folder)
    ? readdirSync(folder).map(
        (f) => /^X-USP-Message-Kind: (\w+)/im.exec(readFileSync(join(folder, f), 'utf8'))?.[1] ?? '?',
      )
    : [];
};

describe('one scheduler of background work per process', () => {
  test('no loaded business polls by itself: the hub asks each once per idle interval', async () => {
    for (const b of [SALON, NORD]) expect((await hostCall(`${d.url(b)}/.well-known/usp`)).status).toBe(200);
    expect(d.hosting.hub?.size).toBe(2);
    const servers = [await serverOf(SALON), await serverOf(NORD)];
    // Settled: what opening found due is done.
    await waitFor(async () => (await servers[0].nextDueAt()) > clock.now(), 5_000, 'nothing due at the salon');
    await waitFor(async () => (await servers[1].nextDueAt()) > clock.now(), 5_000, 'nothing due at Nord');
    const passes = servers.map((s) => {
      let n = 0;
      const tick = s.dispatcher.tick.bind(s.dispatcher);
      s.dispatcher.tick = () => {
        n++;
        return tick();
      };
      return () => n;
    });
    const asks = d.hosting.hub!.asks;
    await new Promise((r) => setTimeout(r, 1_500));
    // Polling every 25 ms, each dispatcher made some 60 passes in that time; asked, none.
    expect(passes.map((n) => n())).toEqual([0, 0]);
    const asked = d.hosting.hub!.asks - asks;
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(2 * (1_500 / IDLE_MS + 2));
  });

  test("10,000 deliveries to endpoints that never answer at one business: another's mail, reminder and expiry come on time", async () => {
    const nord = await serverOf(NORD);
    const now = clock.now();
    await nord.store.transaction(async (tx) => {
      for (let i = 0; i < BACKLOG; i++)
        await tx.webhooks.add({
          event_id: `evt_backlog_${i}`,
          event: 'booking.confirmed',
          seq: i + 1,
          order_key: `bkg_backlog_${i}`,
          target_url: stuck.url(`/hooks/${i % 64}`),
          subscription_id: null,
          body: '{}',
          next_attempt_ms: now,
          created_ms: now,
        });
    });
    nord.dispatcher.nudge();
    await stuck.waitFor((r) => r.length >= 8, 10_000, "Nord's deliveries under way");
    const answers = profiles.addProfile('/platforms/answers.json', { webhook_url: healthy.url('/hooks') });
    const began = performance.now();
    // The salon: a booking paid at the visit (its confirmation now, its reminder a day before), and one paid
    // at booking, left unpaid.
    const free = await book(SALON, SALON.service, answers, 3);
    const unpaid = await book(SALON, 'svc_massage_60', answers, 4);
    expect(unpaid.status).toBe('requires_action');
    await waitFor(() => mailKinds(SALON).includes('booking_confirmed'), 5_000, "the salon's confirmation");
    expect(performance.now() - began).toBeLessThan(5_000);
    // Past the unpaid booking's payment window, nothing asked of the salon: the hub finds the expiry due and sweeps.
    clock.set(Date.parse(unpaid.expires_at) + 1_000);
    const expiredAt = performance.now();
    await healthy.waitFor(
      (r) => r.some((x) => x.json?.event === 'booking.canceled' && x.json?.booking_id === unpaid.id),
      10_000,
      "the salon's unpaid booking canceled by its expiry",
    );
    expect(performance.now() - expiredAt).toBeLessThan(5_000);
    clock.set(Date.parse(free.slot.start) - DAY + 1_000);
    const remindedAt = performance.now();
    await waitFor(() => mailKinds(SALON).includes('reminder'), 10_000, "the salon's reminder");
    expect(performance.now() - remindedAt).toBeLessThan(5_000);
    // All the while Nord's requests were open, unanswered.
    expect(stuck.requests().every((r) => r.answered === null)).toBe(true);
  }, 90_000);
});
