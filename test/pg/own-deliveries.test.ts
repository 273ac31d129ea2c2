/**
 * A transaction's own webhook deliveries on PostgreSQL (`WebhookDispatcher.leaseOwn`): the events a
 * booking raised become their deliveries by a statement in COMMIT's round trip, leased to this
 * process, and are sent with no dispatcher pass (no expansion lock, no read of pending events, no
 * claim). Causal order still holds: a delivery behind an earlier pending one of its booking and
 * target, or a second one to a target in the same transaction, is left for a pass. Skipped, with the
 * reason in the title, when no PostgreSQL URL is set.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { OutboxEvent, Store, WebhookDelivery } from '../../src/store/port.js';
import type { PostgresEventChannel } from '../../src/store/postgres/postgres-store.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { DEFAULT_RETRY, WebhookDispatcher } from '../../src/webhooks/index.js';
import { outboxEvent } from '../support/records.js';
import { TEST_NOW } from '../support/time.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));
const PROFILE = 'http://localhost/platform.json';
const HOOK = 'http://localhost:9/hooks';

describe.skipIf(!PG_URL)(title('a booking’s own webhook deliveries, written with its COMMIT'), () => {
  const schema = schemaName('usp_own_deliveries');
  const sent: string[] = [];
  const posted: string[] = [];
  let store: Store;
  let dispatcher: WebhookDispatcher;
  let seq = 0;
  // While set, the sender waits for it before answering (an attempt kept in flight).
  let gate: Promise<void> | undefined;
  beforeAll(async () => {
    store = await openPostgresStore({ url: urlWithSchema(schema), onStatement: (sql) => sent.push(sql) });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });
  beforeEach(() => {
    dispatcher?.stop(0);
    posted.length = 0;
    dispatcher = new WebhookDispatcher({
      store,
      now: () => TEST_NOW,
      keyring: { active: () => ({ kid: 'k', secret: 's' }) } as never,
      sender: {
        send: async (_url, body) => {
          posted.push(JSON.parse(body).event_id);
          await gate;
          return { status: 200, latencyMs: 1, error: null };
        },
      },
      retry: DEFAULT_RETRY,
      resolveProfile: async () => ({ webhook_url: HOOK }) as never,
      allowLoopback: true,
      log: { info: () => undefined, warn: () => undefined },
      // As hosted: no pass at start or on a timer, only when nudged (or ticked here).
      pollMs: 0,
    });
    dispatcher.start();
  });

  const event = (over: Partial<OutboxEvent> = {}) =>
    outboxEvent(`evt_own_${++seq}`, { order_key: `bkg_own_${seq}`, profile: PROFILE, ...over });

  /** The events written and handed over as the booking's channel does; the handoff started once committed. */
  async function book(events: OutboxEvent[]) {
    sent.length = 0;
    const handoff = await store.transaction(async (tx) => {
      for (const e of events) await tx.outbox.add(e);
      return dispatcher.leaseOwn(tx, events);
    });
    const statements = sent.splice(0);
    if (handoff) dispatcher.committed(handoff);
    return { handoff, statements };
  }

  async function delivered(ids: string[]): Promise<void> {
    for (let i = 0; i < 200 && !ids.every((id) => posted.includes(id)); i++) await new Promise((r) => setTimeout(r, 5));
    await dispatcher.idle();
  }

  const deliveries = (): Promise<WebhookDelivery[]> => store.read((tx) => tx.webhooks.list({ limit: 1000 }));

  test('the deliveries are inserted and leased in COMMIT’s round trip, and sent with no pass', async () => {
    const heard: number[] = [];
    const stopListening = store.channel!.subscribe((seqs) => heard.push(...seqs));
    await (store.channel as PostgresEventChannel).ready();
    const e = event();
    const { handoff, statements } = await book([e]);
    expect(handoff).toBeDefined();
    // BEGIN with the outbox insert held, then one round trip: the held writes, the deliveries, COMMIT.
    expect(statements.length).toBe(2);
    expect(statements[1]).toMatch(
      /INSERT INTO webhook_deliveries[\s\S]*UPDATE outbox SET status = 'dispatched'[\s\S]*COMMIT$/,
    );
    await delivered([e.event_id]);
    const after = sent.splice(0);
    // Only the attempt's record: no expansion lock, no read of pending events, no claim, no NOTIFY of its own.
    expect(
      after.filter((q) =>
        /webhooks:expand|FROM outbox WHERE status = 'pending'|FOR UPDATE SKIP LOCKED|pg_notify/.test(q),
      ),
    ).toEqual([]);
    // The event was announced to every process on the channel, with the COMMIT.
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard.length).toBe(1);
    expect((await store.read((tx) => tx.outbox.bySeq(heard)))[0]?.event_id).toBe(e.event_id);
    stopListening();
    expect(after.filter((q) => q.includes('INSERT INTO webhook_attempts')).length).toBe(1);
    const d = (await deliveries()).find((x) => x.event_id === e.event_id);
    expect(d?.status).toBe('delivered');
    expect(d?.target_url).toBe(`profile:${PROFILE}`);
    expect(await store.read((tx) => tx.outbox.due(TEST_NOW, 100))).toEqual([]);
  });

  test('a rolled-back booking leaves neither its event nor a delivery, and nothing is sent', async () => {
    const e = event();
    await expect(
      store.transaction(async (tx) => {
        await tx.outbox.add(e);
        await dispatcher.leaseOwn(tx, [e]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await dispatcher.tick();
    await dispatcher.idle();
    expect(posted).not.toContain(e.event_id);
    expect((await deliveries()).some((d) => d.event_id === e.event_id)).toBe(false);
  });

  test('two events of one booking to one target: the second waits for the first, then a pass sends it', async () => {
    const first = event({ event: 'booking.created' });
    const second = event({ event: 'booking.confirmed', order_key: first.order_key });
    const { handoff } = await book([first, second]);
    expect(handoff?.due.length).toBe(1);
    await delivered([first.event_id, second.event_id]);
    expect(posted.filter((id) => id === first.event_id || id === second.event_id)).toEqual([
      first.event_id,
      second.event_id,
    ]);
  });

  test('an earlier pending delivery of the booking to the target is not overtaken', async () => {
    const stuck = event();
    // An earlier event of the booking, expanded by a pass whose attempt has not come yet.
    await store.transaction(async (tx) => {
      await tx.outbox.add(stuck);
      await tx.webhooks.add({
        event_id: stuck.event_id,
        event: stuck.event,
        seq: 0,
        order_key: stuck.order_key,
        target_url: `profile:${PROFILE}`,
        subscription_id: null,
        body: JSON.stringify({ event_id: stuck.event_id }),
        next_attempt_ms: TEST_NOW + 60_000,
        created_ms: TEST_NOW,
      });
    });
    const later = event({ order_key: stuck.order_key });
    const { handoff } = await book([later]);
    // Its lane was taken in the transaction, but the statement did not lease it behind the pending one.
    await new Promise((r) => setTimeout(r, 20));
    await dispatcher.tick();
    await dispatcher.idle();
    expect(handoff).toBeDefined();
    expect(posted).not.toContain(later.event_id);
    const d = (await deliveries()).find((x) => x.event_id === later.event_id);
    expect(d?.status).toBe('pending');
  });

  test('a reminder scheduled later stays pending for its time; a catalog event due now gets a pass', async () => {
    const confirmed = event();
    const reminder = event({ event: 'booking.reminder', order_key: confirmed.order_key, due_ms: TEST_NOW + 3_600_000 });
    const catalog = event({ principal: null, profile: null, event: 'service.updated', order_key: 'svc_own' });
    const { handoff } = await book([confirmed, reminder, catalog]);
    expect(handoff?.due.map((d) => d.event_id)).toEqual([confirmed.event_id]);
    await delivered([confirmed.event_id]);
    // The pass the catalog event asked for ran: it is dispatched; the reminder waits for its time.
    for (let i = 0; i < 100 && (await store.read((tx) => tx.outbox.due(TEST_NOW, 100))).length > 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(await store.read((tx) => tx.outbox.due(TEST_NOW, 100))).toEqual([]);
    expect((await store.read((tx) => tx.outbox.due(TEST_NOW + 3_600_000, 100))).map((e) => e.event_id)).toEqual([
      reminder.event_id,
    ]);
    expect(posted).not.toContain(reminder.event_id);
  });

  test('while an attempt is in flight, a booking’s deliveries join the next pass (several bookings’ at once)', async () => {
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const first = event();
    expect((await book([first])).handoff).toBeDefined();
    for (let i = 0; i < 100 && !posted.includes(first.event_id); i++) await new Promise((r) => setTimeout(r, 5));
    // The first attempt is in flight: the next booking leases nothing in its transaction.
    const second = event();
    const { handoff, statements } = await book([second]);
    expect(handoff).toBeUndefined();
    expect(statements.some((q) => q.includes('INSERT INTO webhook_deliveries'))).toBe(false);
    gate = undefined;
    open();
    await dispatcher.idle();
    await dispatcher.tick();
    await delivered([first.event_id, second.event_id]);
    expect((await deliveries()).find((d) => d.event_id === second.event_id)?.status).toBe('delivered');
  });

  test('only a catalog event: the commit nudges the dispatcher as before', async () => {
    expect((await book([event({ principal: null, profile: null })])).handoff).toBeUndefined();
  });
});
