/**
 * The waker in real `usp-server host serve` processes (issue 39, item 4): a deployment killed while a
 * business was loaded (SIGKILL: no close, nothing recorded but the hold its opening wrote), then
 * started again later, sends that business's reminder with no request to its host. Each child runs
 * on its own clock (`USP_CLOCK`, started from a date derived from the real clock): the second starts
 * past the reminder time, as a deployment restarted two days on would.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli, startCliServer, type RunningCli } from '../support/cli.js';
import { hostCall } from '../support/host-fetch.js';
import { clockEnv, waitFor } from '../support/time.js';

const DAY = 86_400_000;
const work = mkdtempSync(join(tmpdir(), 'usp-hosting-wake-cli-'));
const data = join(work, 'data');
const mail = join(work, 'mail');
const env = { HOME: work, XDG_DATA_HOME: join(work, 'xdg') };
const serveArgs = ['host', 'serve', '--data', data, '--port', '0', '--sandbox', '--mail-dir', mail];
let served: RunningCli | undefined;

beforeAll(async () => {
  ensureBuilt();
  const added = await runCli(['host', 'add', '--demo', '--host', 'salon.localhost', '--data', data], {
    cwd: work,
    env,
    timeoutMs: 30_000,
  });
  expect(added.code, added.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await served?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The kinds of the salon's mail written so far. */
function kinds(): string[] {
  const folder = join(mail, 'biz_maple_pine');
  if (!existsSync(folder)) return [];
  return readdirSync(folder).map(
    (f) => /^X-USP-Message-Kind: (\w+)/im.exec(readFileSync(join(folder, f), 'utf8'))?.[1] ?? '?',
  );
}

/**
 * The salon's confirmation recorded as sent in its store (not only written to the folder): mail is sent
 * at least once, so a kill between the write and its record would send it again after the restart.
 */
function confirmationRecorded(): boolean {
  const file = join(data, 'businesses', 'biz_maple_pine.db');
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`SELECT status FROM mail_messages WHERE kind = 'booking_confirmed'`).get() as
      | { status: string }
      | undefined;
    return row !== undefined && row.status !== 'queued';
  } finally {
    db.close();
  }
}

/** A booking three days after `now` (the child's clock) at the salon; its start. */
async function book(port: string, now: number): Promise<number> {
  const agent = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
  const base = `http://salon.localhost:${port}`;
  for (let n = 3; n < 10; n++) {
    const date = new Date(now + n * DAY).toISOString().slice(0, 10);
    const q = await hostCall(`${base}/availability/query`, {
      method: 'POST',
      headers: agent,
      body: { service_id: 'svc_haircut', start_date: date, end_date: date, limit: 1 },
    });
    const slot = q.body?.slots?.[0];
    if (!slot) continue;
    const made = await hostCall(`${base}/bookings`, {
      method: 'POST',
      headers: agent,
      body: {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      },
    });
    expect(made.status, made.text).toBe(201);
    return Date.parse(made.body.booking.slot.start);
  }
  throw new Error('no slot in a week');
}

describe('host serve wakes the businesses nobody asks', () => {
  test('killed while a business was loaded and started again past its reminder time, the deployment sends the reminder with no request', async () => {
    const startedAt = Date.now();
    served = await startCliServer(serveArgs, { cwd: work, env: { ...env, ...clockEnv(startedAt) } });
    const start = await book(new URL(served.url).port, startedAt);
    await waitFor(() => kinds().length === 1, 10_000, 'the confirmation');
    await waitFor(confirmationRecorded, 10_000, 'the confirmation recorded as sent');
    served.child.kill('SIGKILL');
    await served.stop();
    // The defaults (`--wake-interval 15`): the first round runs as the deployment starts listening.
    served = await startCliServer(serveArgs, { cwd: work, env: { ...env, ...clockEnv(start - DAY + 5_000) } });
    await waitFor(() => kinds().includes('reminder'), 15_000, 'the reminder');
    expect(kinds().sort()).toEqual(['booking_confirmed', 'reminder']);
    // Nobody asked the salon anything in this process.
    expect(served.stderr()).not.toMatch(/"operation":/);
  }, 60_000);

  test('a wake interval or concurrency that is not a whole number is refused, named', async () => {
    const bad = await runCli([...serveArgs, '--wake-interval', '1.5'], { cwd: work, env, timeoutMs: 30_000 });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--wake-interval must be an integer >= 0, got "1.5"');
    const none = await runCli([...serveArgs, '--wake-concurrency', '0'], { cwd: work, env, timeoutMs: 30_000 });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('--wake-concurrency must be an integer >= 1, got "0"');
  });
});
