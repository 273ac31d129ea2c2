/**
 * Several processes on one database: every process hears each announced batch of events on the
 * store's channel and reads them back for its MCP sessions. A process with no session and no open
 * 2026-era stream has nobody to hand them to: it reads nothing (one read per batch per process
 * before, the largest cost that grew with the number of processes; docs/BENCHMARKS.md). With a
 * session registered, or a stream open on a stateless listener, it reads and delivers them.
 */
import { describe, expect, test } from 'vitest';
import { SessionHub, type NotifiableSession } from '../../src/bindings/mcp/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { wireWebhooks } from '../../src/server/webhook-wiring.js';
import type { Store } from '../../src/store/index.js';

const EVENT = {
  seq: 7,
  event_id: 'evt_1',
  event: 'booking.confirmed',
  order_key: 'bkg_1',
  principal: 'https://platform.example/p.json',
  profile: 'https://platform.example/p.json',
  payload: { data: { id: 'bkg_1' } },
  created_ms: 0,
  due_ms: 0,
  status: 'dispatched',
};

/** A store with a channel whose announcements the test makes, counting reads. */
function channelStore() {
  let hear: ((seqs: number[]) => void) | undefined;
  let reads = 0;
  const store = {
    channel: {
      subscribe: (fn: (seqs: number[]) => void) => {
        hear = fn;
        return () => undefined;
      },
      publish: async () => undefined,
    },
    read: async (fn: (tx: unknown) => unknown) => {
      reads++;
      return fn({ outbox: { bySeq: async () => [EVENT] } });
    },
  } as unknown as Store;
  return { store, announce: (seqs: number[]) => hear!(seqs), reads: () => reads };
}

function wire(hub: SessionHub, store: Store) {
  return wireWebhooks(
    { enabled: false },
    {
      store,
      clock: { now: () => 0 },
      keyring: {} as never,
      resolver: {} as never,
      allowLoopback: false,
      hub,
      log: silentLogger,
      metrics: () => undefined,
    },
  );
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('announced events on a process with nobody to hand them to', () => {
  test('no session and no stream: nothing is read', async () => {
    const s = channelStore();
    wire(new SessionHub((p) => `usp://webhooks/${p}`), s.store);
    s.announce([7]);
    await tick();
    expect(s.reads()).toBe(0);
  });

  test('a session registered: the events are read and handed to it', async () => {
    const s = channelStore();
    const hub = new SessionHub((p) => `usp://webhooks/${p}`);
    const got: string[] = [];
    const session: NotifiableSession = {
      id: 'mcp_1',
      principals: new Set([EVENT.principal]),
      catalogSubscriber: false,
      notify: (method) => got.push(method),
    };
    hub.register(session);
    wire(hub, s.store);
    s.announce([7]);
    await tick();
    expect(s.reads()).toBe(1);
    expect(got).toEqual(['usp_webhook']);
  });

  test('a stateless listener reads only while its stream is open', async () => {
    const s = channelStore();
    const hub = new SessionHub((p) => `usp://webhooks/${p}`);
    let open = false;
    const heard: string[] = [];
    hub.onEvent(
      (principal) => heard.push(String(principal)),
      () => open,
    );
    wire(hub, s.store);
    s.announce([7]);
    await tick();
    expect(s.reads()).toBe(0);
    open = true;
    s.announce([7]);
    await tick();
    expect(s.reads()).toBe(1);
    expect(heard).toEqual([EVENT.principal]);
    // A listener that cannot say is assumed to listen.
    expect(new SessionHub((p) => p).hasListeners()).toBe(false);
    const unknown = new SessionHub((p) => p);
    unknown.onEvent(() => undefined);
    expect(unknown.hasListeners()).toBe(true);
  });
});
