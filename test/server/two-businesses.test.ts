/**
 * No shared mutable business: two businesses in one process (two stores, two definitions, different
 * ids and services) are served by the SAME pipeline and the SAME door instances, the business of
 * each request chosen by its Host header. A booking made on each, over REST (HTTP) and over MCP
 * (the official SDK client), lands only in that business's store, and each business's profile and
 * services show only its own.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/operations/index.js';
import type { BusinessDef } from '../../src/domain/business.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { recorder } from '../support/log-recorder.js';
import { BUYER, PLATFORM, day, demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { connectMcp, meta } from '../mcp/helpers.js';

/** The second business: its own id and name, and one service the first does not have. */
function secondBusiness(): BusinessDef {
  const demo = demoBusiness();
  const haircut = demo.services.find((s) => s.id === 'svc_haircut')!;
  return {
    ...demo,
    business: { ...demo.business, id: 'biz_second_studio', name: 'Second Studio' },
    services: [{ ...haircut, id: 'svc_second_trim', name: 'Trim at Second Studio' }],
  };
}

let first: UspServer;
let second: UspServer;
const firstLog = recorder();
const secondLog = recorder();
/** The first business at 127.0.0.1, the second at localhost: one listener, two Host headers. */
let urlFirst: string;
let urlSecond: string;

beforeAll(async () => {
  const common = {
    db: ':memory:',
    sandbox: true,
    sweepIntervalMs: 0,
    oauth: false as const,
    clock: new ManualClock(TEST_NOW),
  };
  // The second business is composed for its scope (store, snapshot, policy) only: it never listens.
  second = await createUspServer({ ...common, business: secondBusiness(), log: secondLog.log });
  first = await createUspServer({
    ...common,
    business: demoBusiness(),
    log: firstLog.log,
    // A test-side resolver by Host header, as hosting will have.
    resolveScope: (req, own) => ((req.headers.get('host') ?? '').startsWith('localhost:') ? second.scope : own),
  });
  urlFirst = await first.listen(0, '127.0.0.1');
  urlSecond = urlFirst.replace('127.0.0.1', 'localhost');
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

async function rest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'USP-Agent': `profile="${PLATFORM}"` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function bookOverRest(base: string, serviceId: string): Promise<string> {
  const q = await rest(base, 'POST', '/availability/query', {
    service_id: serviceId,
    start_date: day(2),
    end_date: day(2),
    limit: 5,
  });
  expect(q.status).toBe(200);
  const r = await rest(base, 'POST', '/bookings', { service_id: serviceId, slot_id: q.body.slots[0].id, buyer: BUYER });
  expect(r.status).toBe(201);
  return r.body.booking.id;
}

async function bookOverMcp(base: string, serviceId: string): Promise<string> {
  const conn = await connectMcp('v2', 'http', base);
  try {
    const q = await conn.call('usp_availability_query', {
      service_id: serviceId,
      start_date: day(3),
      end_date: day(3),
      ...meta(),
    });
    expect(q.isError ?? false).toBe(false);
    const b = await conn.call('usp_bookings_create', {
      service_id: serviceId,
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...meta(),
    });
    expect(b.isError ?? false).toBe(false);
    // The words describe the business the call was for.
    return b.structuredContent.booking.id;
  } finally {
    await conn.close();
  }
}

const storedServices = async (server: UspServer) =>
  (await server.store.read((tx) => tx.bookings.recent(100))).map((r) => r.booking.service_id).sort();

describe('two businesses in one process, through the same pipeline and doors', () => {
  test('a booking on each, over REST and over MCP, lands only in its own store', async () => {
    const a = [await bookOverRest(urlFirst, 'svc_haircut'), await bookOverMcp(urlFirst, 'svc_haircut')];
    const b = [await bookOverRest(urlSecond, 'svc_second_trim'), await bookOverMcp(urlSecond, 'svc_second_trim')];
    expect(new Set([...a, ...b]).size).toBe(4);
    expect(await storedServices(first)).toEqual(['svc_haircut', 'svc_haircut']);
    expect(await storedServices(second)).toEqual(['svc_second_trim', 'svc_second_trim']);
    // The first business's service is unknown at the second's host, and the reverse.
    const crossed = await rest(urlSecond, 'POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    expect(crossed.body.slots ?? []).toEqual([]);
    expect(await storedServices(second)).toEqual(['svc_second_trim', 'svc_second_trim']);
    // Every call went through the first server's pipeline (its log line), none through the second's.
    const calls = (lines: typeof firstLog.lines) =>
      lines.filter((l) => l.msg === 'call' && l.fields?.operation === 'create_booking').length;
    expect(calls(firstLog.lines)).toBe(4);
    expect(calls(secondLog.lines)).toBe(0);
  });

  test("each business's profile and services show only its own", async () => {
    const pa = await rest(urlFirst, 'GET', '/.well-known/usp');
    const pb = await rest(urlSecond, 'GET', '/.well-known/usp');
    expect(pa.body.usp.business.name).toBe(demoBusiness().business.name);
    expect(pb.body.usp.business.name).toBe('Second Studio');
    expect(JSON.stringify(pb.body)).not.toContain(demoBusiness().business.name);
    const sa = await rest(urlFirst, 'POST', '/services/list', {});
    const sb = await rest(urlSecond, 'POST', '/services/list', {});
    expect(sa.body.services.map((s: any) => s.id)).toContain('svc_haircut');
    expect(sa.body.services.map((s: any) => s.id)).not.toContain('svc_second_trim');
    expect(sb.body.services.map((s: any) => s.id)).toEqual(['svc_second_trim']);
    expect(sb.body.services[0].business_id).toBe('biz_second_studio');
    const conn = await connectMcp('v2', 'http', urlSecond);
    try {
      const list = await conn.call('usp_services_list', {});
      expect(list.structuredContent.services.map((s: any) => s.id)).toEqual(['svc_second_trim']);
      expect(list.content[0].text).not.toContain('Haircut & Style');
    } finally {
      await conn.close();
    }
  });
});
