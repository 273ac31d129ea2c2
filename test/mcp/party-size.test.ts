/**
 * A party's size end to end (issue 36, item 2), read only from `content[].text` through the official
 * SDK client: a class with fewer places than the party asked says how many are left rather than
 * "full", a waitlist entry keeps the party's size, and an offer is made only when the whole party
 * fits, for the whole party, and accepting it books them all.
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
const call = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  env.conn.call(tool, { ...args, ...meta(undefined, extra) });
const write = (tool: string, args: Record<string, unknown>) => call(tool, args, { idempotency_key: randomUUID() });
const person = (n: number) => ({ ...BUYER, email: `party${n}@example.com` });

describe('a party of three and a class with fewer places', () => {
  it('availability says "1 place left, not enough for 3", the entry keeps the party, and the offer waits until all three fit', async () => {
    const q = await call('usp_availability_query', {
      service_id: 'svc_yoga_class',
      start_date: day(8),
      end_date: day(8),
    });
    const slot = q.structuredContent.slots[0];
    const total = slot.capacity.remaining as number;
    const big = await write('usp_bookings_create', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: person(1),
      party_size: total - 2,
    });
    const one = await write('usp_bookings_create', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: person(2),
    });
    expect(one.structuredContent.booking.status).toBe('confirmed');

    const forThree = await call('usp_availability_query', {
      service_id: 'svc_yoga_class',
      start_date: day(8),
      end_date: day(8),
      party_size: 3,
    });
    const line = text(forThree)
      .split('\n')
      .find((l) => l.includes(slot.id))!;
    expect(line).toContain(`(1 place left, not enough for 3: waitlist only) ${slot.id}`);
    expect(text(forThree)).not.toContain(`(FULL: waitlist only) ${slot.id}`);

    const joined = await write('usp_waitlist_join', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: person(3),
      party_size: 3,
    });
    expect(text(joined)).toMatch(/Waitlist entry \S+: waiting, position 1, party of 3\./);
    expect(text(joined)).toContain('When 3 places free together');
    const entryId = joined.structuredContent.entry.id;

    // One more place frees: two in all, not enough for the party, so no offer.
    await write('usp_bookings_cancel', { booking_id: one.structuredContent.booking.id, reason: 'plans changed' });
    expect(text(await call('usp_waitlist_get', { entry_id: entryId }))).toMatch(/: waiting, position 1, party of 3\./);

    // The big party leaves: now the whole party fits and is offered.
    await write('usp_bookings_cancel', { booking_id: big.structuredContent.booking.id, reason: 'plans changed' });
    const offered = text(await call('usp_waitlist_get', { entry_id: entryId }));
    expect(offered).toContain('Places for the whole party of 3 are offered at');
    const accepted = await write('usp_waitlist_accept', { entry_id: entryId });
    expect(text(accepted)).toMatch(/status confirmed, party of 3\./);
    expect(accepted.structuredContent.booking.party_size).toBe(3);
  });

  it('a party larger than a place holds is refused with the limit named', async () => {
    const r = await write('usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: person(4), party_size: 40 });
    expect(text(r)).toContain('a party of 40 cannot wait for one');
  });
});
