/**
 * A business its operator suspended (`ServerOptions.suspended`, `UspServer.setSuspended`): every
 * service is served `suspended` with the operator's reason, the profile says so, and availability,
 * holds, bookings, reschedules, waitlist joins and walk-ins are refused as business outcomes naming
 * the reason; reads, cancellations and the business's own admin API go on. Through REST, and through
 * the official MCP SDK client over Streamable HTTP, reading what a model reads (`content[].text`).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, type McpConn, type ToolResult } from '../mcp/helpers.js';

const REASON = 'the hosting invoice of November is unpaid';

let t: TestServer | undefined;
let mcp: McpConn | undefined;
afterEach(async () => {
  await mcp?.close();
  await t?.close();
  mcp = undefined;
  t = undefined;
});

const codes = (body: { messages?: Array<{ code: string }> }) => (body.messages ?? []).map((m) => m.code);
const said = (body: { messages?: Array<{ content: string }> }) => (body.messages ?? []).map((m) => m.content).join(' ');
const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

async function firstSlot(s: TestServer, service: string, n = 3): Promise<{ id: string }> {
  const q = await s.call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) });
  expect(q.body.slots.length).toBeGreaterThan(0);
  return q.body.slots[0];
}

describe('a business its operator suspended takes no booking and says why', () => {
  it('REST: services, profile and feed say suspended with the reason; availability, holds, bookings, reschedules, waitlist joins and walk-ins are refused naming it; reads and cancellations go on; opening it again books', async () => {
    t = await startTestServer();
    const slot = await firstSlot(t, 'svc_haircut');
    const made = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
    expect(made.status).toBe(201);
    const bookingId = made.body.booking.id;
    const later = await firstSlot(t, 'svc_haircut', 4);
    const yoga = await firstSlot(t, 'svc_yoga_class', 5);

    await t.server.setSuspended(REASON);

    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.status).toBe('suspended');
    expect(svc.description.plain).toContain(REASON);
    const entry = (await t.call('GET', '/.well-known/usp')).body.usp.capabilities[
      'dev.usp-protocol.services.bookings'
    ][0];
    expect(entry.business_suspended.reason).toBe(REASON);
    expect(entry.suspended_services.map((s: { service_id: string }) => s.service_id)).toContain('svc_haircut');
    // The stored catalog's feed says what the services say (republished at once, not at the next start).
    const list = (await t.call('POST', '/services/list', {})).body;
    expect([list.services, codes(list)]).toEqual([[], ['business_suspended']]);
    expect(said(list)).toContain(REASON);
    const feed = (await t.call('GET', '/services/feed', undefined, { profile: null })).body;
    expect(feed.items.find((i: { data: { id: string } }) => i.data.id === 'svc_haircut').data.status).toBe('suspended');

    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    expect([q.status, q.body.slots, codes(q.body)]).toEqual([200, [], ['slot_unavailable']]);
    expect(said(q.body)).toContain(REASON);
    const h = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: later.id });
    expect([h.status, h.body.hold, codes(h.body)]).toEqual([200, undefined, ['slot_unavailable']]);
    expect(said(h.body)).toContain(REASON);
    const b = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: later.id, buyer: BUYER });
    expect([b.status, b.body.booking, codes(b.body)]).toEqual([200, undefined, ['slot_unavailable']]);
    expect(said(b.body)).toContain(REASON);
    const quote = await t.call('GET', `/ext/usp-server/bookings/${bookingId}/quote?change=reschedule`);
    expect([quote.status, quote.body.quote?.allowed, quote.body.quote?.reason]).toEqual([
      200,
      false,
      'service_unavailable',
    ]);
    expect(quote.body.quote.summary).toContain(REASON);
    const r = await t.call('POST', `/bookings/${bookingId}/reschedule`, { slot_id: later.id });
    expect([r.status, codes(r.body)]).toEqual([200, ['slot_unavailable']]);
    expect(said(r.body)).toContain(REASON);
    expect(r.body.booking.start_time).toBe(made.body.booking.start_time);
    const w = await t.call('POST', '/waitlist', { service_id: 'svc_yoga_class', slot_id: yoga.id, buyer: BUYER });
    expect([w.status, w.body.entry, codes(w.body)]).toEqual([200, undefined, ['slot_unavailable']]);
    expect(said(w.body)).toContain(REASON);
    const walkIn = await t.call(
      'POST',
      '/admin/bookings',
      { service_id: 'svc_haircut', slot_id: later.id, buyer: { first_name: 'Otto', phone_number: '(555) 010-4242' } },
      { apiKey: ADMIN_KEY, profile: null },
    );
    expect([walkIn.status, walkIn.body.booking, codes(walkIn.body)]).toEqual([200, undefined, ['slot_unavailable']]);
    expect(said(walkIn.body)).toContain(REASON);

    // Reads, the business's own admin API and cancellations go on.
    expect((await t.call('GET', `/bookings/${bookingId}`)).body.booking.status).toBe('confirmed');
    const listed = await t.call('GET', `/admin/bookings?date=${day(3)}`, undefined, {
      apiKey: ADMIN_KEY,
      profile: null,
    });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(bookingId);
    const cancelled = await t.call('POST', `/bookings/${bookingId}/cancel`, {});
    expect([cancelled.status, cancelled.body.booking.status]).toEqual([200, 'canceled']);

    // Opened again: the services, the profile and the feed are as before, and a booking is taken.
    await t.server.setSuspended(undefined);
    expect((await t.call('GET', '/services/svc_haircut')).body.service.status).toBe('active');
    expect(
      (await t.call('GET', '/.well-known/usp')).body.usp.capabilities['dev.usp-protocol.services.bookings'][0]
        .business_suspended,
    ).toBeUndefined();
    const feedAgain = (await t.call('GET', '/services/feed', undefined, { profile: null })).body;
    expect(feedAgain.items.find((i: { data: { id: string } }) => i.data.id === 'svc_haircut').data.status).toBe(
      'active',
    );
    const again = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: later.id, buyer: BUYER });
    expect([again.status, again.body.booking.status]).toEqual([201, 'confirmed']);
  });

  it('set at composition (ServerOptions.suspended): the profile says so from the first request, and no booking is taken', async () => {
    t = await startTestServer({ suspended: { reason: REASON } });
    const entry = (await t.call('GET', '/.well-known/usp')).body.usp.capabilities[
      'dev.usp-protocol.services.bookings'
    ][0];
    expect(entry.business_suspended.message).toContain(REASON);
    const feed = (await t.call('GET', '/services/feed', undefined, { profile: null })).body;
    expect(feed.items.length).toBeGreaterThan(0);
    expect(feed.items.every((i: { data: { status: string } }) => i.data.status !== 'active')).toBe(true);
    const b = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: 'slot_any', buyer: BUYER });
    expect([b.status, b.body.booking, codes(b.body)]).toEqual([200, undefined, ['slot_unavailable']]);
  });

  it('MCP (official SDK client over Streamable HTTP): the tool texts name the reason; usp_bookings_get and usp_bookings_cancel work', async () => {
    t = await startTestServer();
    mcp = await connectMcp('v2', 'http', t.url);
    const q = await mcp.call('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
      ...meta(),
    });
    const slotId = q.structuredContent.slots[0].id;
    const made = await mcp.call('usp_bookings_create', {
      service_id: 'svc_haircut',
      slot_id: slotId,
      buyer: BUYER,
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    const bookingId = made.structuredContent.booking.id;

    await t.server.setSuspended(REASON);

    const listed = text(await mcp.call('usp_services_list', { ...meta() }));
    expect(listed).toContain(REASON);
    const svc = text(await mcp.call('usp_services_get', { service_id: 'svc_haircut', ...meta() }));
    expect(svc).toContain('This service is suspended.');
    expect(svc).toContain(REASON);
    const q2 = text(
      await mcp.call('usp_availability_query', {
        service_id: 'svc_haircut',
        start_date: day(4),
        end_date: day(4),
        ...meta(),
      }),
    );
    expect(q2).toContain('[slot_unavailable]');
    expect(q2).toContain(REASON);
    const b = text(
      await mcp.call('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: slotId,
        buyer: BUYER,
        ...meta(undefined, { idempotency_key: randomUUID() }),
      }),
    );
    expect(b).toContain('[slot_unavailable]');
    expect(b).toContain(REASON);
    expect(text(await mcp.call('usp_bookings_get', { booking_id: bookingId, ...meta() }))).toContain(bookingId);
    const cancelled = await mcp.call('usp_bookings_cancel', {
      booking_id: bookingId,
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect(cancelled.structuredContent.booking.status).toBe('canceled');
    expect(text(cancelled)).toMatch(/cancel/i);
  });

  it("the business's own dashboard keeps working and says so on every screen: its bookings are listed, and one is canceled from it", async () => {
    t = await startTestServer();
    const slot = await firstSlot(t, 'svc_haircut');
    const made = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
    const bookingId = made.body.booking.id;
    await addBusinessUser(t.server.store, 'owner@salon.example', 'correct horse battery staple', t.clock.now());
    const d = await signInDashboard(t.url, 'owner@salon.example', 'correct horse battery staple');
    expect(await (await d.get('/admin')).text()).not.toContain('Suspended by the operator');

    await t.server.setSuspended(REASON);
    const home = await (await d.get('/admin')).text();
    expect(home).toContain('Suspended by the operator');
    expect(home).toContain(REASON);
    const card = await d.get(`/admin/ui/bookings/${bookingId}`);
    expect(card.status).toBe(200);
    const page = await card.text();
    expect(page).toContain(bookingId);
    expect(page).toContain(REASON);
    const cancel = await d.post(`/admin/ui/bookings/${bookingId}/cancel`, { _csrf: d.csrf });
    expect(cancel.status).toBe(303);
    expect((await t.call('GET', `/bookings/${bookingId}`)).body.booking.status).toBe('canceled');
  });
});
