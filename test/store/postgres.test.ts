/**
 * The PostgreSQL store: the shared Store contract, then what only a store shared by several
 * processes has to guarantee (migrations racing at start-up, the exclusion constraint on claims,
 * advisory locks, retried deadlocks, leases and conditional updates, LISTEN/NOTIFY). The races run
 * between separate Store instances (separate pools), as separate server processes would.
 * The parity cases for repositories the contract does not cover run on SQLite as well.
 * Skipped, with the reason in the title, when no PostgreSQL URL is configured.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type pg from 'pg';
import { openSqliteStore } from '../../src/store/index.js';
import type { Store, Tx } from '../../src/store/port.js';
import {
  ClaimConflict,
  openPostgresStore,
  type PostgresEventChannel,
} from '../../src/store/postgres/postgres-store.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PG_URL, adminClient, dropSchema, noteSkipped, schemaName } from '../pg/helpers.js';
import { storeContract } from './contract.js';
import { dueContract, queuedMail } from './due-contract.js';
import { frontDeskContract } from './frontdesk-contract.js';
import { claim, outboxEvent as event } from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';

const MIN = 60_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function delivery(eventId: string, seq: number, target: string, orderKey = 'bkg_1') {
  return {
    event_id: eventId,
    event: 'booking.confirmed',
    seq,
    order_key: orderKey,
    target_url: target,
    subscription_id: null,
    body: JSON.stringify({ event_id: eventId }),
    next_attempt_ms: NOW,
    created_ms: NOW,
  };
}

/**
 * Outbox, webhook and security behaviour the operations and the dispatcher rely on, pinned on both
 * engines so that they agree (the shared contract does not cover these repositories).
 */
function parityCases(name: string, open: () => Promise<Store>): void {
  describe(`outbox, webhook and security repositories agree across engines (${name})`, () => {
    let store: Store;
    const write = <T>(fn: (tx: Tx) => Promise<T>) => store.transaction(fn);
    const read = <T>(fn: (tx: Tx) => Promise<T>) => store.read(fn);
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    test('due lists pending events due by now in sequence order; markDispatched moves each once and bySeq finds them', async () => {
      await write(async (tx) => {
        await tx.outbox.add(event('evt_o1'));
        await tx.outbox.add(event('evt_o2', { due_ms: NOW + MIN }));
        await tx.outbox.add(event('evt_o3', { due_ms: NOW - MIN }));
      });
      const due = await read((tx) => tx.outbox.due(NOW, 10));
      expect(due.map((e) => e.event_id)).toEqual(['evt_o1', 'evt_o3']);
      expect(due[0]).toEqual({ ...event('evt_o1'), seq: due[0].seq });
      const seqs = due.map((e) => e.seq);
      expect(await write((tx) => tx.outbox.markDispatched(seqs))).toEqual(seqs);
      expect(await write((tx) => tx.outbox.markDispatched(seqs))).toEqual([]);
      expect((await read((tx) => tx.outbox.due(NOW, 10))).map((e) => e.event_id)).toEqual([]);
      expect((await read((tx) => tx.outbox.due(NOW + MIN, 10))).map((e) => e.event_id)).toEqual(['evt_o2']);
      expect((await read((tx) => tx.outbox.bySeq([seqs[1], 999_999, seqs[0]]))).map((e) => e.event_id)).toEqual([
        'evt_o3',
        'evt_o1',
      ]);
    });

    test('cancelScheduled withdraws only pending events of that key and name', async () => {
      await write(async (tx) => {
        await tx.outbox.add(event('evt_r1', { event: 'booking.reminder', order_key: 'bkg_r', due_ms: NOW + 60 * MIN }));
        await tx.outbox.add(
          event('evt_r2', { event: 'booking.reminder', order_key: 'bkg_other', due_ms: NOW + 60 * MIN }),
        );
      });
      expect(await write((tx) => tx.outbox.cancelScheduled('bkg_r', 'booking.reminder'))).toBe(1);
      expect(await write((tx) => tx.outbox.cancelScheduled('bkg_r', 'booking.reminder'))).toBe(0);
      const due = (await read((tx) => tx.outbox.due(NOW + 60 * MIN, 10))).map((e) => e.event_id);
      expect(due.filter((id) => id.startsWith('evt_r'))).toEqual(['evt_r2']);
    });

    test('claimDue leases one delivery per target in causal order, skips busy targets, and recordAttempt releases it', async () => {
      await write(async (tx) => {
        await tx.webhooks.add(delivery('evt_w1', 1, 'https://a.example/hook'));
        await tx.webhooks.add(delivery('evt_w1', 1, 'https://a.example/hook')); // duplicate: ignored
        await tx.webhooks.add(delivery('evt_w2', 2, 'https://a.example/hook'));
        await tx.webhooks.add(delivery('evt_w3', 3, 'https://b.example/hook', 'bkg_2'));
        await tx.webhooks.add(delivery('evt_w4', 4, 'https://c.example/hook', 'bkg_3'));
      });
      const first = await write((tx) => tx.webhooks.claimDue(NOW, 10, NOW + MIN, ['https://c.example/hook']));
      expect(first.map((d) => d.event_id)).toEqual(['evt_w1', 'evt_w3']);
      expect(first[0]).toMatchObject({
        status: 'pending',
        attempts: 0,
        seq: 1,
        target_url: 'https://a.example/hook',
        delivered_ms: null,
      });
      expect(first[0]).not.toHaveProperty('lease_until_ms');
      // Leased: not handed out again until the lease runs out.
      expect(
        (await write((tx) => tx.webhooks.claimDue(NOW, 10, NOW + MIN, ['https://c.example/hook']))).map(
          (d) => d.event_id,
        ),
      ).toEqual([]);
      await write((tx) =>
        tx.webhooks.recordAttempt(
          { delivery_id: first[0].id, attempt: 1, at_ms: NOW, status_code: 200, latency_ms: 12, error: null },
          { status: 'delivered', next_attempt_ms: NOW },
        ),
      );
      const next = await write((tx) => tx.webhooks.claimDue(NOW, 10, NOW + MIN, []));
      expect(next.map((d) => d.event_id)).toEqual(['evt_w2', 'evt_w4']);
      const delivered = (await read((tx) => tx.webhooks.list({ status: 'delivered', limit: 10 })))[0];
      expect(delivered).toMatchObject({
        event_id: 'evt_w1',
        attempts: 1,
        delivered_ms: NOW,
        last_status: 200,
        last_latency_ms: 12,
      });
      expect(await read((tx) => tx.webhooks.attempts(first[0].id))).toEqual([
        { delivery_id: first[0].id, attempt: 1, at_ms: NOW, status_code: 200, latency_ms: 12, error: null },
      ]);
      // A lease that ran out (at its end instant) makes the delivery claimable again.
      expect(
        (await write((tx) => tx.webhooks.claimDue(NOW + MIN, 10, NOW + 2 * MIN, []))).map((d) => d.event_id),
      ).toEqual(['evt_w2', 'evt_w3', 'evt_w4']);
    });

    test('failed deliveries return to the queue on retry', async () => {
      await write((tx) => tx.webhooks.add(delivery('evt_f1', 10, 'https://f.example/hook', 'bkg_f')));
      const [d] = await write((tx) =>
        tx.webhooks.claimDue(NOW, 10, NOW + MIN, ['https://a.example/hook', 'https://c.example/hook']),
      );
      expect(d.event_id).toBe('evt_f1');
      await write((tx) =>
        tx.webhooks.recordAttempt(
          { delivery_id: d.id, attempt: 1, at_ms: NOW, status_code: 500, latency_ms: 3, error: 'HTTP 500' },
          { status: 'failed', next_attempt_ms: NOW },
        ),
      );
      expect((await read((tx) => tx.webhooks.list({ status: 'failed', limit: 10 }))).map((x) => x.event_id)).toEqual([
        'evt_f1',
      ]);
      expect(await write((tx) => tx.webhooks.retry(d.id, NOW + 1))).toBe(1);
      expect(await write((tx) => tx.webhooks.retry(null, NOW + 1))).toBe(0);
      expect((await read((tx) => tx.webhooks.list({ status: 'pending', limit: 50 }))).map((x) => x.event_id)).toContain(
        'evt_f1',
      );
    });

    test('a jti is accepted once until its record expires; a profile binding is kept on first use', async () => {
      expect(await write((tx) => tx.security.claimJti('jti_1', NOW, NOW + MIN))).toBe(true);
      expect(await write((tx) => tx.security.claimJti('jti_1', NOW + 1, NOW + 2 * MIN))).toBe(false);
      expect(await write((tx) => tx.security.claimJti('jti_1', NOW + MIN, NOW + 3 * MIN))).toBe(true);
      await write((tx) => tx.security.bindProfile('P', 'https://one.example/p.json', NOW));
      await write((tx) => tx.security.bindProfile('P', 'https://two.example/p.json', NOW));
      expect(await read((tx) => tx.security.boundProfile('P'))).toBe('https://one.example/p.json');
      expect(await read((tx) => tx.security.boundProfile('Q'))).toBeNull();
    });

    test('credentials are found by hash and revoked per resource', async () => {
      const c = {
        value_hash: 'h1',
        resource_kind: 'booking' as const,
        resource_id: 'bkg_c',
        jkt: null,
        principal: 'P',
        expires_ms: NOW + MIN,
        revoked: false,
      };
      await write((tx) => tx.security.putCredential(c));
      expect(await read((tx) => tx.security.credential('h1'))).toEqual(c);
      await write((tx) => tx.security.revokeCredentials('bkg_c'));
      expect(await read((tx) => tx.security.credential('h1'))).toEqual({ ...c, revoked: true });
      expect(await read((tx) => tx.security.credential('nope'))).toBeNull();
    });
  });
}

parityCases('sqlite', async () => openSqliteStore({ path: ':memory:' }));

if (!PG_URL) {
  describe.skip(noteSkipped('PostgreSQL store contract and multi-process guarantees'), () => {
    test('runs against PostgreSQL', () => {});
  });
} else {
  const url = PG_URL;
  const schema = schemaName('usp_store');
  const tables = [
    'claims',
    'resource_versions',
    'definition_entries',
    'definition_version',
    'bookings',
    'holds',
    'waitlist_entries',
    'idempotency',
    'catalog',
    'feed_subscriptions',
    'outbox',
    'kv',
    'credentials',
    'proof_jti',
    'principal_bindings',
    'webhook_deliveries',
    'webhook_attempts',
    'registry_businesses',
    'registry_business_terms',
    'registry_services',
    'registry_service_terms',
    'schedule_changes',
    'admin_audit',
    'business_users',
    'admin_sessions',
    'platform_api_keys',
    'oauth_records',
    'buyer_accounts',
    'buyer_bookings',
    'payment_jobs',
    'payment_events',
    'payment_refs',
    'client_notes',
    'mail_messages',
    'calendar_feeds',
    'calendar_push_targets',
    'calendar_push_jobs',
    'calendar_events',
  ];
  // Connection errors are expected where a test kills a connection; the tests observe their effects.
  const open = (s = schema, poolSize?: number) => openPostgresStore({ url, schema: s, poolSize, onError: () => {} });
  let admin: pg.Client;
  const schemas = [schema];

  beforeAll(async () => {
    await (await open()).close();
    admin = await adminClient(schema);
  });
  afterAll(async () => {
    await admin?.end();
    for (const s of schemas) await dropSchema(s);
  });

  /** A fresh, empty store: the suite's schema with every table emptied. */
  const fresh = async () => {
    await admin.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY`);
    return open();
  };

  storeContract('postgres', fresh);
  dueContract('postgres', fresh);

  test('when work is due is read again after a write of its own, not on every ask (the work hub asks every 5 s)', async () => {
    await admin.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY`);
    const sent: string[] = [];
    const store = await openPostgresStore({ url, schema, onStatement: (s) => sent.push(s), onError: () => {} });
    const other = await open();
    const reads = () => sent.filter((s) => s.includes('MIN(due_ms) FROM mail_messages')).length;
    try {
      expect((await store.nextDue()).mail).toBeNull();
      expect((await store.nextDue()).mail).toBeNull();
      expect(reads()).toBe(1);
      await store.transaction((tx) => tx.mail.enqueue(queuedMail('mail_1', NOW + 5_000)));
      expect((await store.nextDue()).mail).toBe(NOW + 5_000);
      expect(reads()).toBe(2);
      // Another process's write is seen once the answer is DUE_MAX_AGE_MS old (src/store/shared/due.ts's DueCache).
      await other.transaction((tx) => tx.mail.enqueue(queuedMail('mail_2', NOW + 4_000)));
      expect((await store.nextDue()).mail).toBe(NOW + 5_000);
      await store.transaction(async () => undefined);
      expect((await store.nextDue()).mail).toBe(NOW + 4_000);
      expect(reads()).toBe(3);
    } finally {
      await other.close();
      await store.close();
    }
  });
  frontDeskContract('postgres', fresh);
  parityCases('postgres', async () => {
    const s = schemaName('usp_parity');
    schemas.push(s);
    return open(s);
  });

  describe('migrations run once even when several processes start together', () => {
    test('three stores opened at once on an empty schema all succeed and record each migration once', async () => {
      const s = schemaName('usp_race');
      schemas.push(s);
      const stores = await Promise.all([open(s), open(s), open(s)]);
      try {
        const versions = await admin.query(`SELECT version FROM "${s}".schema_migrations ORDER BY version`);
        expect(versions.rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
        const t = await admin.query(
          `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1`,
          [s],
        );
        // The listed tables, schema_migrations and claim_span (a one-row bound, never truncated).
        expect(t.rows[0].n).toBe(tables.length + 2);
        // Each store works on the one schema.
        await stores[0].transaction((tx) => tx.kv.set('k', 'v'));
        expect(await stores[2].read((tx) => tx.kv.get('k'))).toBe('v');
      } finally {
        await Promise.all(stores.map((x) => x.close()));
      }
    });

    test('reopening a migrated schema keeps its data and applies nothing again', async () => {
      const a = await fresh();
      await a.transaction((tx) => tx.kv.set('kept', 'yes'));
      await a.close();
      const b = await open();
      try {
        expect(await b.read((tx) => tx.kv.get('kept'))).toBe('yes');
        const versions = await admin.query('SELECT version FROM schema_migrations');
        expect(versions.rowCount).toBe(POSTGRES_MIGRATIONS.length);
      } finally {
        await b.close();
      }
    });
  });

  describe('the database itself refuses overlapping firm claims of different slots on one resource', () => {
    test('an overlapping confirmed claim of another slot is rejected with ClaimConflict and the first is kept', async () => {
      const store = await fresh();
      try {
        await store.transaction((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        const err = await store
          .transaction((tx) => tx.claims.add([claim('bkg_2', 'res_alice', 150, 250)]))
          .catch((e) => e);
        expect(err).toBeInstanceOf(ClaimConflict);
        expect(err.code).toBe('23P01');
        const rows = await store.read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW));
        expect(rows.map((r) => r.owner_id)).toEqual(['bkg_1']);
      } finally {
        await store.close();
      }
    });

    test('claims of one shared slot (a group class) may overlap; touching intervals and other resources are fine', async () => {
      const store = await fresh();
      try {
        const slot = { slot_key: 'svc_yoga|100|res_room', service_id: 'svc_yoga' };
        await store.transaction((tx) =>
          tx.claims.add([
            claim('bkg_1', 'res_room', 100, 200, slot),
            claim('bkg_2', 'res_room', 100, 200, slot),
            claim('bkg_3', 'res_room', 200, 300),
            claim('bkg_4', 'res_alice', 150, 250),
          ]),
        );
        expect(await store.read((tx) => tx.claims.active(['res_room', 'res_alice'], 0, 1000, NOW))).toHaveLength(4);
      } finally {
        await store.close();
      }
    });

    test('a hold may overlap (its expiry is the caller’s to judge), but it cannot become a firm claim over a booking', async () => {
      const store = await fresh();
      try {
        await store.transaction((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        await store.transaction((tx) =>
          tx.claims.add([claim('hld_1', 'res_alice', 150, 250, { is_hold: true, expires_at_ms: NOW })]),
        );
        await expect(store.transaction((tx) => tx.claims.transfer('hld_1', 'bkg_2', null))).rejects.toBeInstanceOf(
          ClaimConflict,
        );
        await expect(store.transaction((tx) => tx.claims.setExpiry('hld_1', null))).rejects.toBeInstanceOf(
          ClaimConflict,
        );
      } finally {
        await store.close();
      }
    });
  });

  describe('transactions in separate stores (separate processes) serialize where they must', () => {
    test('lock() on one key makes a second transaction wait until the first commits; check-and-reserve takes the slot once', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        const order: string[] = [];
        const reserve = (store: Store, who: string) =>
          store.transaction(async (tx) => {
            await tx.lock(['resource:res_alice']);
            order.push(`${who} locked`);
            const taken = await tx.claims.active(['res_alice'], 100, 200, NOW);
            await sleep(150);
            // Same slot_key: the exclusion constraint would not catch this; only the lock does.
            if (taken.length === 0) await tx.claims.add([claim(`bkg_${who}`, 'res_alice', 100, 200)]);
            order.push(`${who} done`);
            return taken.length === 0;
          });
        const results = await Promise.all([reserve(a, 'a'), reserve(b, 'b')]);
        expect(results.filter(Boolean)).toHaveLength(1);
        // Whoever locked first finished before the other got the lock.
        const first = order[0].split(' ')[0];
        const second = first === 'a' ? 'b' : 'a';
        expect(order).toEqual([`${first} locked`, `${first} done`, `${second} locked`, `${second} done`]);
        expect(await a.read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW))).toHaveLength(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('locks on different keys do not wait for each other', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        const t0 = Date.now();
        await Promise.all([
          a.transaction(async (tx) => {
            await tx.lock(['resource:x']);
            await sleep(300);
          }),
          b.transaction(async (tx) => {
            await tx.lock(['resource:y']);
            await sleep(300);
          }),
        ]);
        expect(Date.now() - t0).toBeLessThan(550);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('a deadlock between two transactions is retried: both commit', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        let runs = 0;
        const cross = (store: Store, first: string, second: string) =>
          store.transaction(async (tx) => {
            runs++;
            await tx.lock([first]);
            await sleep(100);
            await tx.lock([second]);
            await tx.kv.set(`done:${first}`, 'yes');
          });
        await Promise.all([cross(a, 'k1', 'k2'), cross(b, 'k2', 'k1')]);
        expect(runs).toBeGreaterThanOrEqual(3);
        expect(await a.read((tx) => tx.kv.get('done:k1'))).toBe('yes');
        expect(await a.read((tx) => tx.kv.get('done:k2'))).toBe('yes');
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('get-or-create on kv from three stores at once creates one value', async () => {
      const stores = await Promise.all([fresh(), open(), open()]);
      try {
        const values = await Promise.all(
          stores.map((s, i) =>
            s.transaction(async (tx) => {
              let v = await tx.kv.get('secret');
              await sleep(50);
              if (!v) await tx.kv.set('secret', (v = `value_${i}`));
              return v;
            }),
          ),
        );
        expect(new Set(values).size).toBe(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    test('one proof jti presented to two stores at once is accepted once', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        const tries = Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).transaction((tx) => tx.security.claimJti('jti_race', NOW, NOW + MIN)),
        );
        expect((await Promise.all(tries)).filter(Boolean)).toHaveLength(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('two workers draining one outbox move every event exactly once', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        await a.transaction(async (tx) => {
          for (let i = 0; i < 40; i++) await tx.outbox.add(event(`evt_d${i}`));
        });
        const drain = async (s: Store) => {
          const mine: number[] = [];
          for (;;) {
            const due = await s.read((tx) => tx.outbox.due(NOW, 7));
            if (due.length === 0) return mine;
            mine.push(...(await s.transaction((tx) => tx.outbox.markDispatched(due.map((e) => e.seq)))));
          }
        };
        const [ma, mb] = await Promise.all([drain(a), drain(b)]);
        expect([...ma, ...mb].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('two workers claiming deliveries at once never lease the same delivery', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        await a.transaction(async (tx) => {
          for (let i = 0; i < 30; i++)
            await tx.webhooks.add(delivery(`evt_l${i}`, i + 1, `https://t${i}.example/hook`, `bkg_${i}`));
        });
        // Each worker leases small batches until nothing is left; rows the other is leasing are skipped.
        const work = async (s: Store) => {
          const mine: number[] = [];
          for (let idle = 0; idle < 3; ) {
            const got = await s.transaction((tx) => tx.webhooks.claimDue(NOW, 4, NOW + MIN, []));
            mine.push(...got.map((d) => d.id));
            idle = got.length === 0 ? idle + 1 : 0;
          }
          return mine;
        };
        const [da, db] = await Promise.all([work(a), work(b)]);
        const ids = [...da, ...db];
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(30);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });

  describe('the event channel reaches every process on the database', () => {
    test('seqs published by one store are delivered to a subscriber of another; unsubscribing stops delivery', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        const got: number[][] = [];
        const off = a.channel!.subscribe((seqs) => got.push(seqs));
        await (a.channel as PostgresEventChannel).ready();
        await b.channel!.publish([3, 1, 2]);
        await expect.poll(() => got, { timeout: 3000 }).toEqual([[3, 1, 2]]);
        // Payloads above NOTIFY's limit arrive in several announcements, nothing lost.
        const many = Array.from({ length: 3000 }, (_, i) => 100_000 + i);
        await b.channel!.publish(many);
        await expect.poll(() => got.slice(1).flat().length, { timeout: 3000 }).toBe(many.length);
        expect(got.slice(1).flat()).toEqual(many);
        off();
        await b.channel!.publish([9]);
        await sleep(200);
        expect(got.flat()).not.toContain(9);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('a store in another schema does not hear this schema’s announcements', async () => {
      const other = schemaName('usp_chan');
      schemas.push(other);
      const [a, b] = await Promise.all([open(other), fresh()]);
      try {
        const got: number[][] = [];
        a.channel!.subscribe((seqs) => got.push(seqs));
        await (a.channel as PostgresEventChannel).ready();
        await b.channel!.publish([1]);
        await a.channel!.publish([2]);
        await expect.poll(() => got, { timeout: 3000 }).toEqual([[2]]);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('the listener reconnects after its connection is killed', async () => {
      const [a, b] = await Promise.all([fresh(), open()]);
      try {
        const got: number[] = [];
        a.channel!.subscribe((seqs) => got.push(...seqs));
        await (a.channel as PostgresEventChannel).ready();
        const killed = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND datname = current_database()`,
          [`LISTEN "usp_events_${schema}"`],
        );
        expect(killed.rowCount).toBe(1);
        await expect
          .poll(
            async () => {
              await b.channel!.publish([7]);
              return got.includes(7);
            },
            { timeout: 5000, interval: 200 },
          )
          .toBe(true);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
}
