/**
 * Events reach the sessions of the platform that made a booking, and the sessions that act on it
 * with its booking-scoped credential (spec 9.2.3: "the platform that made or holds the resource").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

async function connect(url: string, events: string[]): Promise<Client> {
  const client = new Client({ name: 'holder-test', version: '1' });
  client.setNotificationHandler(
    'usp_webhook',
    { params: z.looseObject({}) },
    (p: any) => void events.push(`${p.event}:${p.booking_id}`),
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe('a session holding a booking-scoped credential hears that booking', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('the holder session receives booking.canceled; a bystander session receives nothing', async () => {
    const makerEvents: string[] = [];
    const holderEvents: string[] = [];
    const bystanderEvents: string[] = [];
    const maker = await connect(t.url, makerEvents);
    const holder = await connect(t.url, holderEvents);
    const bystander = await connect(t.url, bystanderEvents);
    try {
      const q: any = await maker.callTool({
        name: 'usp_availability_query',
        arguments: { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) },
      });
      const b: any = await maker.callTool({
        name: 'usp_bookings_create',
        arguments: {
          service_id: 'svc_haircut',
          slot_id: q.structuredContent.slots[0].id,
          buyer: BUYER,
          _meta: { usp: { profile: 'https://maker.example/p.json' } },
        },
      });
      const id = b.structuredContent.booking.id;
      const credential = b.structuredContent.booking_scoped_credential.value;
      const read: any = await holder.callTool({
        name: 'usp_bookings_get',
        arguments: {
          booking_id: id,
          _meta: {
            usp: {
              profile: 'https://holder.example/p.json',
              authorization: { mechanism: 'booking_scoped_credential', credential },
            },
          },
        },
      });
      expect(read.structuredContent.booking.id).toBe(id);
      await maker.callTool({
        name: 'usp_bookings_cancel',
        arguments: { booking_id: id, _meta: { usp: { profile: 'https://maker.example/p.json' } } },
      });
      const deadline = Date.now() + 3000;
      while (!holderEvents.includes(`booking.canceled:${id}`) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(holderEvents).toContain(`booking.canceled:${id}`);
      expect(makerEvents).toContain(`booking.canceled:${id}`);
      expect(bystanderEvents).toEqual([]);
    } finally {
      await Promise.all([maker.close(), holder.close(), bystander.close()]);
    }
  });
});
