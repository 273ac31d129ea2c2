/**
 * Terms in words match the policy object the same result carries (issue 36, item 5): a class whose
 * rescheduling policy has a free window and no fee says the window, not a bare "free". Through the
 * official SDK client, reading `content[].text` and comparing with `structuredContent`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BUYER, day } from '../support/server.js';
import { meta, openEnv, type McpEnv, type ToolResult } from './helpers.js';

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env.close());

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
const hours = (iso: string) => Number(/^PT(\d+)H$/.exec(iso)?.[1]);

describe("a service's and a booking's terms say what the policy says", () => {
  it('the yoga class: free rescheduling until 12 hours before, no fee after, at most once', async () => {
    const r = await env.conn.call('usp_services_get', { service_id: 'svc_yoga_class', ...meta() });
    const policy = r.structuredContent.service.policies.rescheduling;
    expect(policy.fee).toBeUndefined();
    const t = text(r);
    expect(t).toContain(
      `Reschedule: free until ${hours(policy.free_reschedule_until)} hours before the start, and after that too (no fee is set); at most ${policy.max_reschedules} time`,
    );
    expect(t).not.toMatch(/Reschedule: free;/);
  });

  it('a booking of it says the instant the window closes', async () => {
    const q = await env.conn.call('usp_availability_query', {
      service_id: 'svc_yoga_class',
      start_date: day(9),
      end_date: day(9),
      ...meta(),
    });
    const made = await env.conn.call('usp_bookings_create', {
      service_id: 'svc_yoga_class',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect(text(made)).toMatch(
      /Reschedule: free until \w{3} \d+ \w{3} 2026 \d+:\d\d E[SD]T, and after that too \(no fee is set\); at most 1 time in all/,
    );
  });
});
