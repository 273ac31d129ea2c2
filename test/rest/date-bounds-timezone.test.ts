/**
 * The newer text's query timezones on both doors: `date_bounds_timezone` says whose days the
 * date-only bounds are (default: the business's), the answer names the zone it applied
 * (`applied_date_bounds_timezone`) and the business's own (`business_timezone`), and instants are
 * never moved by it. Our pinned `timezone` keeps its meaning (the zone of returned times, and of
 * the dates when no `date_bounds_timezone` is sent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, type McpConn } from '../mcp/helpers.js';
import { localToUtcMs, addDays } from '../../src/domain/index.js';

const BUSINESS = 'America/New_York';
const TOKYO = 'Asia/Tokyo';

let t: TestServer;
let mcp: McpConn;
beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp('v2', 'memory', t);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

const rest = async (body: Record<string, unknown>) => {
  const r = await t.call('POST', '/availability/query', { service_id: 'svc_haircut', ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const overMcp = async (args: Record<string, unknown>) =>
  (await mcp.call('usp_availability_query', { service_id: 'svc_haircut', ...args })).structuredContent;
const starts = (answer: any): number[] => answer.slots.map((s: any) => Date.parse(s.start));

describe.each([
  ['REST', rest],
  ['MCP', overMcp],
] as const)('date_bounds_timezone over %s', (_door, query) => {
  const d = day(3);

  it('without it, the dates are the business days and both answer zones are the business zone', async () => {
    const a = await query({ start_date: d, end_date: d });
    expect(a.applied_date_bounds_timezone).toBe(BUSINESS);
    expect(a.business_timezone).toBe(BUSINESS);
    const [from, to] = [localToUtcMs(d, '00:00', BUSINESS), localToUtcMs(addDays(d, 1), '00:00', BUSINESS)];
    expect(starts(a).length).toBeGreaterThan(0);
    for (const s of starts(a)) expect(s >= from && s < to).toBe(true);
  });

  it("with Asia/Tokyo, the dates are Tokyo's days: slots of the business's evening before come in, its evening after stays out", async () => {
    const a = await query({ start_date: d, end_date: d, date_bounds_timezone: TOKYO });
    expect(a.applied_date_bounds_timezone).toBe(TOKYO);
    expect(a.business_timezone).toBe(BUSINESS);
    const [from, to] = [localToUtcMs(d, '00:00', TOKYO), localToUtcMs(addDays(d, 1), '00:00', TOKYO)];
    expect(starts(a).length).toBeGreaterThan(0);
    for (const s of starts(a)) expect(s >= from && s < to).toBe(true);
    const businessDay = await query({ start_date: d, end_date: d });
    expect(starts(a)).not.toEqual(starts(businessDay));
    // Slot times stay on the business's clock: the zone of the bounds does not move the offsets.
    for (const s of a.slots) expect(s.start).toMatch(/-0[45]:00$/);
  });

  it('instant bounds mean the same instants whatever date_bounds_timezone says, and the answer still names the zone it would apply', async () => {
    const from = new Date(localToUtcMs(d, '09:00', BUSINESS)).toISOString();
    const to = new Date(localToUtcMs(d, '13:00', BUSINESS)).toISOString();
    const plain = await query({ start_date: from, end_date: to });
    const tokyo = await query({ start_date: from, end_date: to, date_bounds_timezone: TOKYO });
    expect(starts(tokyo)).toEqual(starts(plain));
    expect(tokyo.applied_date_bounds_timezone).toBe(TOKYO);
  });

  it('our pinned timezone alone is still the zone of the dates and of returned times, and is what the answer says was applied', async () => {
    const a = await query({ start_date: d, end_date: d, timezone: TOKYO });
    expect(a.applied_date_bounds_timezone).toBe(TOKYO);
    expect(a.business_timezone).toBe(BUSINESS);
    for (const s of a.slots) expect(s.start).toMatch(/\+09:00$/);
  });

  it('an unknown service still names both zones beside its service_unresolved message', async () => {
    const a = await query({ service_id: 'svc_nope', start_date: d, end_date: d, date_bounds_timezone: TOKYO });
    expect(a.messages.map((m: any) => m.code)).toEqual(['service_unresolved']);
    expect(a).toMatchObject({ applied_date_bounds_timezone: TOKYO, business_timezone: BUSINESS });
  });
});

describe('a date_bounds_timezone that is not an IANA zone is a protocol error naming it', () => {
  it('REST: 400 invalid_request with the field', async () => {
    const r = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
      date_bounds_timezone: 'Mars/Olympus',
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('date_bounds_timezone');
  });

  it('MCP: -32600 with data.code invalid_request and the field', async () => {
    const err = await mcp.callError('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
      date_bounds_timezone: 'Mars/Olympus',
    });
    expect(err.code).toBe(-32600);
    expect(err.data.code).toBe('invalid_request');
    expect(JSON.stringify(err.data.errors)).toContain('date_bounds_timezone');
  });
});
