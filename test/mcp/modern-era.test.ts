/**
 * The stateless 2026-07-28 MCP revision on /mcp (server/discover, per-request envelope): tools work
 * the same, and a platform's events arrive as notifications/resources/updated on the resource named
 * in every result's _meta.usp.webhook_resource, with the event in params. The listen names its
 * platform like any privileged call (here in the sandbox, the profile alone, on USP-Agent);
 * test/mcp/listen-authorization.test.ts refuses it to anyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

describe('the 2026-07-28 era on /mcp', () => {
  let t: TestServer;
  let client: Client;
  const events: any[] = [];
  const profile = 'https://modern.example/profile.json';

  beforeAll(async () => {
    t = await startTestServer();
    client = new Client({ name: 'modern-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setNotificationHandler('notifications/resources/updated', (n: any) => void events.push(n.params));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { 'USP-Agent': `profile="${profile}"` } },
      }),
    );
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('negotiates the modern era and lists the same 28 tools (the OpenRPC 21, the four feed-subscription tools of the newer text, uspserver_bookings_list, uspserver_bookings_quote and uspserver_bookings_renew_payment)', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    const tools = await client.listTools();
    expect(tools.tools).toHaveLength(28);
  });

  it('a booking made in this era is announced on the principal webhook resource with the event in params', async () => {
    const q: any = await client.callTool({
      name: 'usp_availability_query',
      arguments: { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) },
    });
    const probe: any = await client.callTool({ name: 'usp_waitlist_list', arguments: { _meta: { usp: { profile } } } });
    const uri = probe._meta['dev.usp-server/webhook_resource'] as string;
    // The former key, in the spec's _meta.usp, still names it for one release.
    expect(probe._meta.usp.webhook_resource).toBe(uri);
    expect(uri).toMatch(/^usp:\/\/webhooks\/[A-Za-z0-9_-]{43}$/);
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    const b: any = await client.callTool({
      name: 'usp_bookings_create',
      arguments: {
        service_id: 'svc_haircut',
        slot_id: q.structuredContent.slots[0].id,
        buyer: BUYER,
        _meta: { usp: { profile } },
      },
    });
    expect(b.structuredContent.booking.status).toBe('confirmed');
    const deadline = Date.now() + 3000;
    while (events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const n = events.find((e) => e.uri === uri);
    expect(n).toBeDefined();
    const payload = n._meta['dev.usp-server/webhook'];
    expect(n._meta['dev.usp-protocol/webhook']).toEqual(payload); // the former key, kept one release
    expect(payload).toMatchObject({ event: 'booking.confirmed', booking_id: b.structuredContent.booking.id });
    expect(typeof payload.event_id).toBe('string');
    await sub.close();
  });
});
