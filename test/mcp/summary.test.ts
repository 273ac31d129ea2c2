/**
 * What a model reads of an availability answer (the `content` text): grouped by day and time,
 * each resource named once per time with its slot id, the zone said, the range covered and how
 * to ask for the rest. Sizes are ceilings measured in characters (docs/BENCHMARKS.md), not timings.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { operationForDashboard } from '../../src/operations/index.js';
import { summarize } from '../../src/bindings/mcp/summary.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const CTX = { zone: 'America/New_York', currency: 'USD' };
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function answer(body: Record<string, unknown>) {
  const q = await t.call('POST', '/availability/query', body);
  expect(q.status).toBe(200);
  return { data: q.body, text: summarize('usp_availability_query', q.body, [], CTX) };
}

describe('an availability summary lets a model answer "when can I get a haircut?" from one call', () => {
  it('a one-day query answers the whole day, every slot id reachable from the text, under 40 characters per slot', async () => {
    const { data, text } = await answer({ service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
    expect(data.pagination.has_more).toBe(false);
    expect(data.slots.length).toBeGreaterThan(50);
    for (const s of data.slots) expect(text).toContain(s.id);
    expect(text).toContain('America/New_York');
    expect(text).toContain('That is every slot');
    expect(text.length / data.slots.length).toBeLessThan(40);
    expect(text.length).toBeLessThan(4_000);
  });

  it('groups by day and time: the date is written once per day and each time once', async () => {
    const { data, text } = await answer({ service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe(
      'Resource ids (to filter, pass resource_id): Ava Chen res_stylist_ava, Carla Ruiz res_stylist_carla, Ben Okafor res_stylist_ben.',
    );
    lines.splice(1, 1);
    expect(lines[1].startsWith('Fri 4 Dec 2026: 9:00 ')).toBe(true);
    expect(text.match(/Dec 2026/g)!.length).toBe(3); // the range in the header, and the one day line
    const times = new Set(data.slots.map((s: any) => s.start));
    expect(lines[1].split(' · ')).toHaveLength(times.size);
    expect(lines[1]).toMatch(/ · 11:15 Ava Chen slot_[\w-]+, Ben Okafor slot_[\w-]+, Carla Ruiz slot_[\w-]+ · /);
  });

  it('a seven-day query says where the page ends and how to ask for the rest, under 40 characters per slot', async () => {
    const { data, text } = await answer({ service_id: 'svc_haircut', start_date: day(3), end_date: day(9) });
    expect(data.pagination.has_more).toBe(true);
    for (const s of data.slots) expect(text).toContain(s.id);
    expect(text).toContain(`cursor "${data.pagination.cursor}"`);
    expect(text).toContain('America/New_York');
    expect(text.length / data.slots.length).toBeLessThan(40);
    expect(text.length).toBeLessThan(8_000);
  });

  it('an empty range still names the zone', async () => {
    const text = summarize('usp_availability_query', { slots: [], pagination: { has_more: false } }, [], CTX);
    expect(text).toContain('No open slots');
    expect(text).toContain('America/New_York');
  });

  it('a class names the spots left with its instructor and room', async () => {
    const { data, text } = await answer({ service_id: 'svc_yoga_class', start_date: day(1), end_date: day(7) });
    expect(data.slots.length).toBeGreaterThan(0);
    expect(text).toMatch(/ \+ Studio A \(\d+ left\) slot_/);
    for (const s of data.slots) expect(text).toContain(s.id);
  });
});

describe('the text of a cached availability page is kept while the page comes back, and never outlives it', () => {
  // The pipeline's own answer, as the MCP binding gets it: cached slots arrive as the same frozen objects.
  const query = async (body: Record<string, unknown>) => {
    const r = await t.server.pipeline.execute(
      operationForDashboard('free_slots'),
      { input: body, profile: 'https://platform.example/profiles/agent.json' },
      t.server.scope,
    );
    if (!r.ok) throw new Error(r.error.message);
    return r.data as Record<string, any>;
  };
  const fresh = (data: Record<string, any>, ctx = CTX) =>
    summarize('usp_availability_query', JSON.parse(JSON.stringify(data)), [], ctx);

  it('a repeated page reuses its text (no start is formatted again); it reads exactly as the text of an uncached copy', async () => {
    const body = { service_id: 'svc_haircut', start_date: day(4), end_date: day(4) };
    const first = await query(body);
    expect(Object.isFrozen(first.slots[0])).toBe(true);
    const text = summarize('usp_availability_query', first, [], CTX);
    expect(text).toBe(fresh(first));
    const again = await query(body);
    expect(again.slots[0]).toBe(first.slots[0]);
    const parse = vi.spyOn(Date, 'parse');
    try {
      expect(summarize('usp_availability_query', again, [], CTX)).toBe(text);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // Another zone is another text.
    const tokyo = { zone: 'Asia/Tokyo', currency: 'USD' };
    expect(summarize('usp_availability_query', again, [], tokyo)).toBe(fresh(again, tokyo));
    expect(summarize('usp_availability_query', again, [], tokyo)).not.toBe(text);
  });

  it('after a booking the page is new objects, and its text no longer offers the booked slot; a narrower page of the same slots has its own text', async () => {
    const body = { service_id: 'svc_haircut', start_date: day(5), end_date: day(5) };
    const before = await query(body);
    const beforeText = summarize('usp_availability_query', before, [], CTX);
    const taken = before.slots[0];
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: taken.id, buyer: BUYER },
      { idempotencyKey: randomUUID() },
    );
    expect(b.status).toBe(201);
    const after = await query(body);
    const afterText = summarize('usp_availability_query', after, [], CTX);
    expect(afterText).toBe(fresh(after));
    expect(beforeText).toContain(taken.id);
    expect(afterText).not.toContain(taken.id);
    // A page that shares its first slot object but not the rest (a resource filter) is never given the other's text.
    const one = await query({ ...body, resource_id: after.slots[0].resources[0].id });
    const oneText = summarize('usp_availability_query', one, [], CTX);
    expect(oneText).toBe(fresh(one));
    expect(summarize('usp_availability_query', after, [], CTX)).toBe(afterText);
  });
});
