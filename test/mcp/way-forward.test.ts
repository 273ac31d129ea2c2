/**
 * A refusal says what the person can do next (issue 36, item 3), read only from `content[].text`
 * through the official SDK client: a booking made through another platform, or an unknown id,
 * names the person's booking page and the business's phone and email; other refusals name the
 * tool to call next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BUYER, day, OTHER_PLATFORM } from '../support/server.js';
import { meta, openEnv, type McpEnv, type ToolResult } from './helpers.js';

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env.close());

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

describe('every refusal has a way forward', () => {
  it('a booking made through another platform: its booking page from the confirmation mail, or the business by phone or mail', async () => {
    const q = await env.conn.call('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
      ...meta(),
    });
    const elsewhere = await env.conn.call('usp_bookings_create', {
      service_id: 'svc_haircut',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...meta(OTHER_PLATFORM, { idempotency_key: randomUUID() }),
    });
    const id = elsewhere.structuredContent.booking.id;
    // Not found in the path is a JSON-RPC error (spec-next 9.4.3); its message is all a host shows the model.
    const t = (await env.conn.callError('usp_bookings_get', { booking_id: id, ...meta() })).message;
    expect(t).toMatch(/^booking_not_found: /);
    expect(t).toContain('booking page (the link in the confirmation mail)');
    expect(t).toContain('call +1 212 555 0147 or write to hello@maple-pine.example');
    const unknown = (
      await env.conn.callError('usp_bookings_cancel', {
        booking_id: 'bk_nope',
        ...meta(undefined, { idempotency_key: randomUUID() }),
      })
    ).message;
    expect(unknown).toContain('Maple & Pine Salon and Studio directly (call +1 212 555 0147');
  });

  it('an unknown service names the tool that lists them; a lapsed hold says to query again', async () => {
    const svc = (await env.conn.callError('usp_services_get', { service_id: 'svc_nope', ...meta() })).message;
    expect(svc).toMatch(/Next: usp_services_list lists the services/);
    const hold = text(
      await env.conn.call('usp_availability_release', {
        hold_id: 'hld_nope',
        ...meta(undefined, { idempotency_key: randomUUID() }),
      }),
    );
    expect(hold).toMatch(/Next: query availability again \(usp_availability_query\)/);
  });
});
