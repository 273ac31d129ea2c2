/**
 * MCP notifications across processes on one PostgreSQL database: an event one process dispatches is
 * announced on the store's channel, and each process hands it to its own MCP sessions. A process
 * with no session (and no open 2026-era stream) reads nothing back; the one whose session acts for
 * the platform reads the batch and notifies it. Skipped, with the reason in the title, when no
 * PostgreSQL URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SessionHub } from '../../src/bindings/mcp/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { wireWebhooks, type WebhookWiring } from '../../src/server/webhook-wiring.js';
import type { Store } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { PostgresEventChannel } from '../../src/store/postgres/channel.js';
import { outboxEvent } from '../support/records.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(title('MCP notifications of two processes on one PostgreSQL database'), () => {
  const schema = schemaName('usp_fan_out');
  const reads = [0, 0];
  const stores: Store[] = [];
  const hubs = [new SessionHub((p) => `usp://w/${p}`), new SessionHub((p) => `usp://w/${p}`)];
  const wired: WebhookWiring[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = await openPostgresStore({
        url: urlWithSchema(schema),
        onStatement: (sql) => void (/FROM outbox WHERE seq = ANY/.test(sql) && reads[i]++),
      });
      await (store.channel as PostgresEventChannel).ready();
      stores.push(store);
      wired.push(
        wireWebhooks(
          { enabled: false },
          {
            store,
            clock: { now: () => TEST_NOW },
            keyring: {} as never,
            resolver: { resolve: async () => ({ webhook_url: null }) } as never,
            allowLoopback: false,
            hub: hubs[i],
            log: silentLogger,
            metrics: () => undefined,
          },
        ),
      );
    }
  });
  afterAll(async () => {
    for (const w of wired) {
      w.unsubscribe();
      await w.dispatcher.stop(0);
    }
    for (const s of stores) await s.close();
    await dropSchema(schema);
  });

  test('only the process with a session for the platform reads the announced events back, and its session hears them', async () => {
    const e = outboxEvent('evt_fan_1', { order_key: 'bkg_fan_1' });
    const heard: string[] = [];
    hubs[1].register({
      id: 'mcp_b',
      principals: new Set([e.principal!]),
      catalogSubscriber: false,
      notify: (method, params) => heard.push(`${method} ${(params as { event_id?: string }).event_id}`),
    });
    await stores[0].transaction((tx) => tx.outbox.add(e));
    // Process A's dispatcher expands it and announces it on the channel.
    await wired[0].dispatcher.tick();
    await waitFor(() => heard.length === 1, 5_000, "process B's session notified");
    expect(heard).toEqual(['usp_webhook evt_fan_1']);
    await new Promise((r) => setTimeout(r, 200));
    expect(reads).toEqual([0, 1]);
  });
});
