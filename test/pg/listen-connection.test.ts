/**
 * The LISTEN connection the event channel and the deployment's directory share
 * (src/store/postgres/listen-connection.ts): its backend killed by the server (pg_terminate_backend,
 * as a restart or an administrator does), it connects again by itself, tells its user when it was
 * lost so that what was missed can be read, and the next notification arrives.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ListenConnection } from '../../src/store/postgres/listen-connection.js';
import { waitFor } from '../support/time.js';
import { PG_URL, adminClient, noteSkipped } from './helpers.js';

const suite = PG_URL ? describe : describe.skip;
const title = 'a LISTEN connection comes back after its backend is killed (PostgreSQL)';

suite(PG_URL ? title : noteSkipped(title), () => {
  const app = `usp-listen-${process.pid}-${randomBytes(3).toString('hex')}`;
  const channel = `usp-listen-test-${randomBytes(4).toString('hex')}`;
  const got: string[] = [];
  const listened: Array<number | undefined> = [];
  let listen: ListenConnection;
  let admin: Awaited<ReturnType<typeof adminClient>>;

  beforeAll(async () => {
    admin = await adminClient();
    listen = new ListenConnection({
      config: { connectionString: PG_URL, application_name: app },
      channel,
      onNotify: (payload) => void got.push(payload),
      onListening: async (lostAtMs) => void listened.push(lostAtMs),
      onError: () => undefined,
    });
    await listen.start();
  });
  afterAll(async () => {
    await listen?.close();
    await admin?.end();
  });

  const notify = (payload: string) => admin.query('SELECT pg_notify($1, $2)', [channel, payload]);

  test('the backend killed, it listens again, says when it was lost, and the next notification arrives', async () => {
    expect(listen.listening).toBe(true);
    expect(listened).toEqual([undefined]);
    await notify('before');
    await waitFor(() => got.includes('before'), 5000, 'the first notification');

    const killedAt = Date.now();
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [app],
    );
    expect(killed.rowCount).toBe(1);
    await waitFor(() => listened.length === 2 && listen.listening, 10_000, 'listening again');
    expect(listened[1]).toBeGreaterThanOrEqual(killedAt - 1000);

    await notify('after');
    await waitFor(() => got.includes('after'), 5000, 'the notification after the reconnect');
    expect(got).toEqual(['before', 'after']);
  });

  test('closed, it listens no more and does not come back', async () => {
    await listen.close();
    expect(listen.listening).toBe(false);
    const left = async () =>
      (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [app])).rows[0]
        .n;
    await waitFor(async () => (await left()) === 0, 5000, 'its session gone');
    await new Promise((r) => setTimeout(r, 600));
    expect(await left()).toBe(0);
  });
});
