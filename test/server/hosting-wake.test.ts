/**
 * Businesses nobody is asking anything still get their due work done (issue 39, item 4): `host
 * serve`'s waker opens a business that is not loaded once its next due instant (the directory's
 * `wake_at`, recorded when the pool closed it) has come, lets its workers run, and closes it again.
 * Each case drives the hosting through its doors only to book; what is due later arrives with no
 * request to the business's host: a reminder after an idle close, a reminder after a restart (the
 * business never requested by the new deployment), and a reminder of one business while another's
 * webhook endpoint hangs with a backlog (the waker gives that one its bound, then the next its turn).
 * On SQLite, and on PostgreSQL (schemas of the test's own) when USP_TEST_PG_URL is set.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { openDeploymentDirectoryAt, type DeploymentDirectory } from '../../src/store/index.js';
import { PG_URL, dropSchema, noteSkipped, schemaName } from '../pg/helpers.js';
import { createHosting, type Hosting, type HostingOptions } from '../../src/server/hosting.js';
import { hostedMail } from '../../src/server/cli/host.js';
import type { Flags } from '../../src/server/cli/flags.js';
import { hostCall } from '../support/host-fetch.js';
import { NORD, NORD_FILE, SALON, type Biz } from '../support/hosting.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { BUYER, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { RunningClock } from '../webhooks/helpers.js';

const DAY = 86_400_000;

let dir: string;
let clock: RunningClock;
let directory: DeploymentDirectory;
/** The businesses' database (PostgreSQL) or none (SQLite files), and this test's schema names. */
let db: string | undefined;
let prefix: string;
let hosting: Hosting | undefined;
let port: string;
let profiles: ProfileServer;
let stuck: WebhookReceiver;
/** A platform with no webhook endpoint (a booking needs a platform). */
let quiet: string;

beforeAll(async () => {
  profiles = await startProfileServer();
  stuck = await startWebhookReceiver();
  stuck.setDefault('/hooks', 'hang');
  quiet = profiles.addProfile('/platforms/quiet.json');
});

afterAll(async () => {
  await stuck?.close();
  await profiles?.close();
});

afterEach(async () => {
  await hosting?.close();
  hosting = undefined;
  if (db) for (const s of ['directory', SALON.id, NORD.id]) await dropSchema(`${prefix}_${s}`);
  rmSync(dir, { recursive: true, force: true });
});

const openDirectory = () =>
  openDeploymentDirectoryAt({ db, path: join(dir, 'deployment.db') }, { schema: `${prefix}_directory` });

/** A new deployment (folder, and schemas on PostgreSQL) with the salon and Nord, on a running clock from TEST_NOW. */
async function fresh(on: string | undefined): Promise<void> {
  db = on;
  prefix = schemaName('wake');
  dir = mkdtempSync(join(tmpdir(), 'usp-hosting-wake-'));
  clock = new RunningClock(TEST_NOW);
  directory = await openDirectory();
  await directory.add({ id: SALON.id, hosts: [SALON.host], origin: 'demo', addedAt: 1 });
  await directory.add({ id: NORD.id, hosts: [NORD.host], origin: NORD_FILE, addedAt: 2 });
}

/** Host serve over the deployment (its directory opened again after a restart). */
async function serve(wake: HostingOptions['wake'], idleCloseMs = 1_000): Promise<void> {
  directory ??= await openDirectory();
  hosting = createHosting({
    directory,
    dataDir: dir,
    db,
    schemaPrefix: `${prefix}_`,
    server: {
      sandbox: true,
      sweepIntervalMs: 0,
      clock,
      security: { allowLoopbackProfiles: true },
      webhooks: { timeoutMs: 30_000, pollMs: 25, retry: { firstRetryMs: 50, maxRetries: 3, maxTotalMs: 60_000 } },
    },
    serverFor: (b) => ({ mail: hostedMail({ 'mail-dir': join(dir, 'mail') } as Flags, b) }),
    log: silentLogger,
    idleCloseMs,
    wake,
  });
  port = new URL(await hosting.listen(0, '127.0.0.1')).port;
}

async function restart(wake: HostingOptions['wake']): Promise<void> {
  await hosting?.close();
  directory = undefined as never;
  await serve(wake);
}

/** A booking on day `n` (through the business's REST door); its start. */
async function book(b: Biz, n: number, profile = quiet): Promise<number> {
  const headers = { 'USP-Agent': `profile="${profile}"` };
  const base = `http://${b.host}:${port}`;
  const q = await hostCall(`${base}/availability/query`, {
    method: 'POST',
    headers,
    body: { service_id: b.service, start_date: day(n), end_date: day(n), limit: 1 },
  });
  expect(q.status, q.text).toBe(200);
  const r = await hostCall(`${base}/bookings`, {
    method: 'POST',
    headers,
    body: { service_id: b.service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(r.status, r.text).toBe(201);
  return Date.parse(r.body.booking.slot.start);
}

/** The kinds of the business's mail written so far. */
function mailOf(b: Biz): string[] {
  const folder = join(dir, 'mail', b.id);
  if (!existsSync(folder)) return [];
  return readdirSync(folder).map(
    (f) => /^X-USP-Message-Kind: (\w+)/im.exec(readFileSync(join(folder, f), 'utf8'))?.[1] ?? '?',
  );
}

const reminders = (b: Biz) => mailOf(b).filter((s) => s === 'reminder').length;
const closed = (b: Biz) => !hosting!.loaded.includes(b.id);

function wakes(engine: string, on: string | undefined): void {
  describe(`the waker does the due work of businesses that are not loaded (${engine})`, () => {
    test('a reminder due after the business was idle-closed is sent with no request to its host, and the business is closed again', async () => {
      await fresh(on);
      await serve({ intervalMs: 100 });
      const start = await book(SALON, 3);
      await waitFor(() => mailOf(SALON).length === 1, 5_000, "the salon's confirmation");
      await waitFor(() => closed(SALON), 5_000, 'the salon closed after idling');
      clock.set(start - DAY + 1_000);
      await waitFor(() => reminders(SALON) === 1, 5_000, "the salon's reminder");
      await waitFor(() => closed(SALON), 5_000, 'the salon closed again after its work');
      expect(mailOf(NORD)).toEqual([]);
    });

    test('after a restart, the reminder of a business the new deployment was never asked about is sent', async () => {
      await fresh(on);
      await serve({ intervalMs: 100 }, 0);
      const start = await book(NORD, 2);
      await waitFor(() => mailOf(NORD).length === 1, 5_000, "Nord's confirmation");
      await restart({ intervalMs: 100 });
      clock.set(start - DAY + 1_000);
      await waitFor(() => reminders(NORD) === 1, 5_000, "Nord's reminder");
      expect(mailOf(NORD).sort()).toEqual(['booking_confirmed', 'reminder']);
    });

    test("one business's webhook backlog to an endpoint that never answers holds the waker for its bound at most: another's reminder follows", async () => {
      await fresh(on);
      // One lane: the two businesses are woken one after the other, the salon (due longer) first.
      await serve({ intervalMs: 100, concurrency: 1, boundMs: 1_500 });
      const hangs = profiles.addProfile('/platforms/hangs.json', { webhook_url: stuck.url('/hooks') });
      for (let i = 0; i < 6; i++) await book(SALON, 2 + (i % 3), hangs);
      const start = await book(NORD, 4);
      await stuck.waitFor((r) => r.length >= 1, 5_000, "the salon's first delivery");
      // Nord idles closed; the salon is woken again and again for its backlog, the bound each time.
      await waitFor(() => closed(NORD), 10_000, 'Nord closed after idling');
      clock.set(start - DAY + 1_000);
      const began = performance.now();
      await waitFor(() => reminders(NORD) === 1, 20_000, "Nord's reminder");
      // The salon's lane time (1.5 s, then its deliveries' release) and Nord's own opening, far inside the 30 s hang.
      expect(performance.now() - began).toBeLessThan(10_000);
      expect(stuck.requests().every((r) => r.answered === null)).toBe(true);
    }, 60_000);

    test('the directory knows: a loaded business is held ahead of now (woken soon after if its process dies), a closed one is due at its next work', async () => {
      await fresh(on);
      await serve({ intervalMs: 100 }, 0);
      const start = await book(SALON, 3);
      await waitFor(() => mailOf(SALON).length === 1, 5_000, "the salon's confirmation");
      expect(await directory.wake.at(SALON.id)).toBeGreaterThan(clock.now() + 30_000);
      // Its workers done with what is due now (the confirmation's event handed out too), it is closed.
      const dueLater = async () => ((await hosting!.pool.peek(SALON.id, (s) => s.nextDueAt())) ?? 0) > clock.now();
      await waitFor(dueLater, 5_000, 'nothing due now at the salon');
      await hosting!.pool.close(SALON.id);
      const at = await directory.wake.at(SALON.id);
      expect(at).toBeGreaterThan(clock.now());
      expect(at).toBeLessThanOrEqual(start - DAY);
    });
  });
}

wakes('SQLite', undefined);
if (PG_URL) wakes('PostgreSQL', PG_URL);
else
  describe.skip(noteSkipped('the waker does the due work of businesses that are not loaded (PostgreSQL)'), () => {
    test('a reminder due after an idle close is sent unasked', () => {});
  });
