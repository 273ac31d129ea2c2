/**
 * The principal's webhook resource (`usp://webhooks/...`) for 2025-era sessions: clients that keep
 * only `notifications/resources/updated` (the Python SDK drops `usp_webhook`) subscribe to it and
 * read it to learn what changed. A read answers the principal's recent events from the store's
 * outbox (bounded, newest first, each with its event_id), whichever door raised them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, OTHER_PLATFORM, PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorCodes, meta, nyDate, waitFor, type McpConn } from './helpers.js';

let t: TestServer;
let conn: McpConn;
const updated: string[] = [];
const day = (n: number) => nyDate(t.clock.now(), n);

beforeAll(async () => {
  t = await startTestServer();
  conn = await connectMcp('v2', 'memory', t);
  conn.client.setNotificationHandler('notifications/resources/updated', (n: { params: { uri: string } }) => {
    updated.push(n.params.uri);
  });
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await t?.close();
});

let next = 0;
async function bookHaircut(c: McpConn, profile = PLATFORM): Promise<{ booking: any; resource: string }> {
  const r0 = await c.call('usp_availability_query', {
    service_id: 'svc_haircut',
    start_date: day(6),
    end_date: day(6),
    limit: 200,
  });
  const starts = new Set<string>();
  const slots = (r0.structuredContent.slots as any[]).filter((s) => !starts.has(s.start) && starts.add(s.start));
  const slot = slots[next++ % slots.length];
  const r = await c.call('usp_bookings_create', {
    service_id: 'svc_haircut',
    slot_id: slot.id,
    buyer: BUYER,
    ...meta(profile, { idempotency_key: randomUUID() }),
  });
  expect(errorCodes(r)).toEqual([]);
  return { booking: r.structuredContent.booking, resource: (r as any)._meta['dev.usp-server/webhook_resource'] };
}

async function readEvents(c: McpConn, uri: string): Promise<any[]> {
  const res = await c.client.readResource({ uri });
  expect(res.contents[0].mimeType).toBe('application/json');
  return JSON.parse(res.contents[0].text).events;
}

describe('resources/subscribe and resources/unsubscribe on the webhook resource (2025-era sessions)', () => {
  it('the session is told resources.subscribe and subscribing answers an empty result, not -32601', async () => {
    expect(conn.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const { resource } = await bookHaircut(conn);
    expect(resource).toMatch(/^usp:\/\/webhooks\//);
    await expect(conn.client.subscribeResource({ uri: resource })).resolves.toEqual({});
  });

  it('a subscribed session gets notifications/resources/updated for its resource on each event, and none after unsubscribing', async () => {
    const { booking, resource } = await bookHaircut(conn);
    await conn.client.subscribeResource({ uri: resource });
    updated.length = 0;
    const cancel = await conn.call('usp_bookings_cancel', {
      booking_id: booking.id,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    expect(errorCodes(cancel)).toEqual([]);
    await waitFor(() => updated.includes(resource), 5000, 'resources/updated after the cancel');

    await conn.client.unsubscribeResource({ uri: resource });
    updated.length = 0;
    const seen = conn.notifications.length;
    const second = await bookHaircut(conn);
    await waitFor(() => conn.notifications.length > seen, 5000, 'the usp_webhook of the new booking');
    await new Promise((r) => setTimeout(r, 100));
    expect(updated).toEqual([]);
    expect(second.resource).toBe(resource);
  });
});

describe('resources/read of the webhook resource answers the recent events, newest first', () => {
  it('events raised through the REST door are there too, each with event_id, newest first', async () => {
    const { booking, resource } = await bookHaircut(conn);
    // Cancel through REST: the event is read from the store, not from what this MCP session saw.
    const res = await t.call('POST', `/bookings/${booking.id}/cancel`, {}, { idempotencyKey: randomUUID() });
    expect(res.status).toBe(200);
    await waitFor(
      async () =>
        (await readEvents(conn, resource))[0]?.booking_id === booking.id &&
        (await readEvents(conn, resource))[0]?.event === 'booking.canceled',
    );
    const events = await readEvents(conn, resource);
    expect(events.length).toBeGreaterThan(1);
    expect(events.length).toBeLessThanOrEqual(50);
    for (const e of events) expect(e.event_id).toEqual(expect.any(String));
    const times = events.map((e) => Date.parse(e.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });

  it('a session that never acted for the principal cannot read its events (resource_not_found)', async () => {
    const { resource } = await bookHaircut(conn);
    const other = await connectMcp('v2', 'memory', t);
    try {
      await bookHaircut(other, OTHER_PLATFORM);
      let err: any;
      await other.client.readResource({ uri: resource }).catch((e: unknown) => (err = e));
      expect(err?.data?.code).toBe('resource_not_found');
      expect(err.message).toContain('resource_not_found: ');
    } finally {
      await other.close();
    }
  });
});
