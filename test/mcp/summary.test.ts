/**
 * What a model reads of an availability answer (the `content` text): grouped by day and time,
 * each resource named once per time with its slot id, the zone said, the range covered and how
 * to ask for the rest. Sizes are ceilings measured in characters (docs/BENCHMARKS.md), not timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../src/bindings/mcp/summary.js';
import { day, startTestServer, type TestServer } from '../support/server.js';

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
    expect(text).toContain('That is every open slot');
    expect(text.length / data.slots.length).toBeLessThan(40);
    expect(text.length).toBeLessThan(4_000);
  });

  it('groups by day and time: the date is written once per day and each time once', async () => {
    const { data, text } = await answer({ service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
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
