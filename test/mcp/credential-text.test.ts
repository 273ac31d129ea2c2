/**
 * The booking-scoped credential in a text-only host (issue 36, item 4): the result's text never
 * tells the model to keep a credential it cannot see. The credential stays in structuredContent for
 * the platform; the text says how to reach the booking or entry later (its id, this platform).
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
const write = (tool: string, args: Record<string, unknown>) =>
  env.conn.call(tool, { ...args, ...meta(undefined, { idempotency_key: randomUUID() }) });

describe('a credential the text-only model never sees is never mentioned to it', () => {
  it('a new booking and a waitlist entry name their id and the tool to reach them, not the credential', async () => {
    const q = await env.conn.call('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(5),
      end_date: day(5),
      ...meta(),
    });
    const made = await write('usp_bookings_create', {
      service_id: 'svc_haircut',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
    });
    expect(made.structuredContent.booking_scoped_credential?.value).toBeTruthy();
    const t = text(made);
    expect(t).not.toContain('booking_scoped_credential');
    expect(t).not.toContain('do not show it');
    expect(t).toContain(
      `call usp_bookings_get with booking_id ${made.structuredContent.booking.id} from this same platform`,
    );
    const joined = await write('usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: BUYER });
    expect(joined.structuredContent.booking_scoped_credential?.value).toBeTruthy();
    expect(text(joined)).not.toContain('booking_scoped_credential');
    expect(text(joined)).toContain(`call usp_waitlist_get with entry_id ${joined.structuredContent.entry.id}`);
  });
});
