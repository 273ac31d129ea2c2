/**
 * `usp_services_get` is the full card (issue 36, item 8), read only from `content[].text` through the
 * official SDK client: who delivers the service with resource ids, whether the business confirms by
 * hand, the time zone, the payment window, what a late cancellation keeps of a deposit, how refunds
 * are paid and the business's phone and email; the list stays one line per service. A hold of a
 * service paid when booking says the payment window before the booking is made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { day } from '../support/server.js';
import { meta, openEnv, type McpEnv, type ToolResult } from './helpers.js';

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env.close());

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

describe('usp_services_get says everything usp_services_list does not', () => {
  it('the haircut: its stylists with ids, booked at once, the zone, no online refunds, the contact', async () => {
    const t = text(await env.conn.call('usp_services_get', { service_id: 'svc_haircut', ...meta() }));
    expect(t).toMatch(/Delivered by [^.]*\(res_[a-z_]+\)/);
    expect(t).toContain('pass its id as resource_id to usp_availability_query');
    expect(t).toContain('Booked at once: the business does not confirm by hand.');
    expect(t).toContain('Times are in New York time (America/New_York).');
    expect(t).toContain('Nothing is paid online, so nothing is refunded online.');
    expect(t).toContain(
      'Questions about a booking: Maple & Pine Salon and Studio directly (call +1 212 555 0147 or write to hello@maple-pine.example).',
    );
  });

  it('the bridal trial: the payment window before booking, and what a late cancellation keeps of the deposit', async () => {
    const t = text(await env.conn.call('usp_services_get', { service_id: 'svc_bridal_trial', ...meta() }));
    expect(t).toContain(
      'Payment window: the payment link is open up to 24 hours after booking, closing 1 hour before the start if that comes sooner',
    );
    expect(t).toContain(
      'Cancelling after the free window keeps the whole $45.00 deposit (the fee is $45.00); before it, the deposit comes back in full.',
    );
    expect(t).toContain('Refunds: this is a sandbox business: no money moves');
  });

  it('a manual service says the business confirms by hand and how long it may take', async () => {
    const t = text(await env.conn.call('usp_services_get', { service_id: 'svc_color_consult', ...meta() }));
    expect(t).toContain('The business confirms each request by hand, within 24 hours');
  });

  it('the list stays compact: none of the card', async () => {
    const t = text(await env.conn.call('usp_services_list', meta()));
    expect(t).not.toContain('Delivered by');
    expect(t).not.toContain('Questions about a booking');
  });

  it('a hold of a massage says the payment window before booking', async () => {
    const q = await env.conn.call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(6),
      end_date: day(6),
      ...meta(),
    });
    const h = await env.conn.call('usp_availability_hold', {
      service_id: 'svc_massage_60',
      slot_id: q.structuredContent.slots[0].id,
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect(text(h)).toContain('Once booked, it must be paid by a payment link open up to 24 hours after booking');
  });
});
