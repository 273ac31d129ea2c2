/**
 * The one LISTEN connection of a process's keyed stores (src/store/postgres/listen.ts,
 * `SharedListener`): many stores opening and closing at once (a hosting process loading and evicting
 * businesses) send their LISTEN and UNLISTEN one at a time, never a query on a client still busy
 * with another (deprecated by pg, refused from pg 9), and each channel still hears its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { SharedListener } from '../../src/store/postgres/listen.js';
import { waitFor } from '../support/time.js';
import { PG_URL, adminClient, noteSkipped } from './helpers.js';

const suite = PG_URL ? describe : describe.skip;
const title = 'a shared LISTEN connection takes its channels one query at a time (PostgreSQL)';

suite(PG_URL ? title : noteSkipped(title), () => {
  const original = pg.Client.prototype.query;
  afterAll(() => {
    pg.Client.prototype.query = original;
  });

  test('twenty channels opened and closed at once: no query overlaps another, and the rest still hear', async () => {
    const app = `usp-shared-listen-${process.pid}`;
    const listener = new SharedListener({ connectionString: PG_URL, application_name: app }, () => undefined);
    let overlapped = 0;
    let inFlight = 0;
    // Counts queries sent while another is still running on the same client: the listener's only.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (
        (this as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters
          ?.application_name !== app
      )
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      if (inFlight > 0) overlapped++;
      inFlight++;
      const r = (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      return r.finally(() => inFlight--);
    } as typeof original;
    const prefix = `usp_shared_${randomBytes(3).toString('hex')}`;
    const heard = new Map<string, string[]>();
    const names = Array.from({ length: 20 }, (_, i) => `${prefix}_${i}`);
    const handles = await Promise.all(
      names.map((n) =>
        listener.listen(
          n,
          (p) => heard.set(n, [...(heard.get(n) ?? []), p]),
          () => undefined,
        ),
      ),
    );
    await Promise.all(handles.slice(0, 18).map((h) => h.close()));
    expect(overlapped).toBe(0);
    expect(inFlight).toBe(0);

    const admin = await adminClient();
    try {
      for (const n of names) await admin.query('SELECT pg_notify($1, $2)', [n, `to ${n}`]);
      await waitFor(() => heard.size === 2, 5000, 'the two channels still open hear');
      await new Promise((r) => setTimeout(r, 200));
      expect([...heard.keys()].sort()).toEqual(names.slice(18).sort());
    } finally {
      await admin.end();
      await Promise.all(handles.slice(18).map((h) => h.close()));
      await listener.end();
    }
  });
});
