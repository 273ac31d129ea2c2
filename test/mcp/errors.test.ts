/**
 * Protocol errors on the MCP door, pinned as they arrive at a v2 client over Streamable HTTP
 * (spec §9.4; CONFORMANCE §9 and decisions D1, D2, D8, D10, D11, D13, D14): each protocol failure but an unknown tool
 * is a JSON-RPC error with the USP code and `data.code` / `data.content`; business outcomes are
 * never JSON-RPC errors but results with `structuredContent.messages` and `isError: true`. The
 * optional `_meta.usp.correlation_id` is echoed in `result._meta.usp.correlation_id`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, OTHER_PLATFORM, PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorCodes, meta, nyDate, postRaw, type McpConn, type RpcError } from './helpers.js';

let t: TestServer;
let conn: McpConn;
const day = (n: number) => nyDate(t.clock.now(), n);

beforeAll(async () => {
  t = await startTestServer();
  conn = await connectMcp('v2', 'http', t.url);
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await t?.close();
});

/** Free haircut slots on day(n), each at a distinct start time (so that no two claims collide). */
async function haircutSlots(n: number): Promise<any[]> {
  const r = await conn.call('usp_availability_query', {
    service_id: 'svc_haircut',
    start_date: day(n),
    end_date: day(n),
    limit: 200,
  });
  const seen = new Set<string>();
  return (r.structuredContent.slots as any[]).filter((s) => !seen.has(s.start) && seen.add(s.start));
}

let slotCursor = 0;
/** Books a fresh haircut (a different start time on each call) and returns the booking. */
async function bookHaircut(profile = PLATFORM): Promise<any> {
  const slots = await haircutSlots(5);
  const slot = slots[slotCursor++ % slots.length];
  const r = await conn.call('usp_bookings_create', {
    service_id: 'svc_haircut',
    slot_id: slot.id,
    buyer: BUYER,
    ...meta(profile, { idempotency_key: randomUUID() }),
  });
  expect(errorCodes(r)).toEqual([]);
  return r.structuredContent.booking;
}

interface ErrorCase {
  rule: string;
  code: number;
  dataCode?: string;
  /** Each string must appear in data.content. */
  mentions?: string[];
  run(): Promise<RpcError>;
}

const CASES: ErrorCase[] = [
  {
    rule: 'a missing required field is -32600 naming the field',
    code: -32600,
    dataCode: 'invalid_request',
    mentions: ['service_id'],
    run: () => conn.callError('usp_availability_query', { start_date: day(1), end_date: day(1) }),
  },
  {
    rule: 'a field of the wrong type is -32600 naming the field',
    code: -32600,
    dataCode: 'invalid_request',
    mentions: ['service_id'],
    run: () => conn.callError('usp_availability_query', { service_id: 42, start_date: day(1), end_date: day(1) }),
  },
  {
    rule: 'a stale _meta.usp.if_match on cancel is -32002 revision_mismatch (restored after the SDK rewrite)',
    code: -32002,
    dataCode: 'revision_mismatch',
    run: async () => {
      const b = await bookHaircut();
      return conn.callError('usp_bookings_cancel', { booking_id: b.id, ...meta(PLATFORM, { if_match: 'rev_stale' }) });
    },
  },
  {
    rule: 'an idempotency key reused with different params is -32600 idempotency_conflict (D1)',
    code: -32600,
    dataCode: 'idempotency_conflict',
    run: async () => {
      const [a, b] = await haircutSlots(6);
      const key = randomUUID();
      const first = await conn.call('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: a.id,
        buyer: BUYER,
        ...meta(PLATFORM, { idempotency_key: key }),
      });
      expect(errorCodes(first)).toEqual([]);
      return conn.callError('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: b.id,
        buyer: BUYER,
        ...meta(PLATFORM, { idempotency_key: key }),
      });
    },
  },
  {
    rule: 'an availability range over the maximum is -32600 range_too_wide (D11)',
    code: -32600,
    dataCode: 'range_too_wide',
    run: () =>
      conn.callError('usp_availability_query', { service_id: 'svc_haircut', start_date: day(1), end_date: day(45) }),
  },
  {
    rule: 'an unknown _meta.usp member is -32600 naming it',
    code: -32600,
    dataCode: 'invalid_request',
    mentions: ['favourite_colour'],
    run: () => conn.callError('usp_services_list', { _meta: { usp: { favourite_colour: 'teal' } } }),
  },
  {
    rule: 'a non-https profile is -32602 invalid_profile_url',
    code: -32602,
    dataCode: 'invalid_profile_url',
    run: () => conn.callError('usp_waitlist_list', meta('http://platform.example/profile.json')),
  },
  {
    // With no credential either, Streamable HTTP answers 401 first (MCP authorization; see below).
    rule: 'a privileged tool without a profile is -32600 naming the profile (D7)',
    code: -32600,
    mentions: ['profile'],
    run: () =>
      conn.callError('usp_bookings_get', {
        booking_id: 'bkg_anything',
        _meta: { usp: { authorization: { mechanism: 'http_message_signature' } } },
      }),
  },
  {
    rule: 'usp_bookings_confirm called by a platform is -32006 authentication_required (D8)',
    code: -32006,
    run: async () => {
      const [slot] = (
        await conn.call('usp_availability_query', {
          service_id: 'svc_color_consult',
          start_date: day(3),
          end_date: day(3),
        })
      ).structuredContent.slots;
      const r = await conn.call('usp_bookings_create', {
        service_id: 'svc_color_consult',
        slot_id: slot.id,
        buyer: BUYER,
        ...meta(),
      });
      expect(r.structuredContent.booking.status).toBe('pending');
      return conn.callError('usp_bookings_confirm', { booking_id: r.structuredContent.booking.id, ...meta() });
    },
  },
  {
    rule: 'the active-hold limit is -32007 rate_limited with data.code hold_limit_exceeded (D10)',
    code: -32007,
    dataCode: 'hold_limit_exceeded',
    run: async () => {
      const holder = 'https://holder.example/profile.json';
      const slots = await haircutSlots(8);
      const outcomes: string[] = [];
      for (const slot of slots) {
        let r;
        try {
          r = await conn.call('usp_availability_hold', {
            service_id: 'svc_haircut',
            slot_id: slot.id,
            ...meta(holder),
          });
        } catch (err) {
          return err as RpcError;
        }
        outcomes.push(errorCodes(r).join(',') || 'held');
      }
      throw new Error(`the hold limit was never reached: ${outcomes.join(' ')}`);
    },
  },
];

describe('protocol errors are JSON-RPC errors carrying the USP code, data.code and data.content', () => {
  it.each(CASES)('$rule', async (c) => {
    const err = await c.run();
    expect(err.code).toBe(c.code);
    expect(err.data, 'error data').toBeTypeOf('object');
    expect(typeof err.data.code).toBe('string');
    expect(typeof err.data.content).toBe('string');
    expect(err.data.content.length).toBeGreaterThan(0);
    if (c.dataCode) expect(err.data.code).toBe(c.dataCode);
    for (const m of c.mentions ?? []) expect(err.data.content).toContain(m);
  });

  it('an unknown tool is -32602 with no data.code, the one JSON-RPC error without it (spec-next 9.2.1), naming the tool', async () => {
    const err = await conn.callError('usp_bookings_teleport', {});
    expect([err.code, err.data.code, err.data.reason]).toEqual([-32602, undefined, 'unknown_tool']);
    expect(err.data.content).toContain('usp_bookings_teleport');
    expect(err.message).toMatch(/^unknown_tool: No tool named "usp_bookings_teleport"/);
  });

  it('revision_mismatch leaves the server as -32002 in the raw JSON-RPC bytes', async () => {
    const b = await bookHaircut();
    const sessionId = conn.transport.sessionId as string;
    const res = await postRaw(
      t.url,
      { sessionId, protocolVersion: conn.transport.protocolVersion },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'raw-412',
        method: 'tools/call',
        params: {
          name: 'usp_bookings_cancel',
          arguments: { booking_id: b.id, ...meta(PLATFORM, { if_match: '"rev_stale"' }) },
        },
      }),
    );
    expect(res.status).toBe(200);
    const reply = res.messages.find((m) => m.id === 'raw-412');
    expect(reply?.error).toMatchObject({
      code: -32002,
      message: expect.stringMatching(/^revision_mismatch: /),
      data: { code: 'revision_mismatch' },
    });
  });
});

/** The code a case's message starts with: the USP code the JSON-RPC number stands for. */
const WIRE: Record<number, string> = {
  [-32600]: 'invalid_request',
  [-32602]: '',
  [-32002]: 'revision_mismatch',
  [-32006]: 'authentication_required',
  [-32007]: 'rate_limited',
};

describe('an error message is a sentence that starts with the code and says what to change (MCP hosts show only the message)', () => {
  it.each(CASES)('$rule: message = "<code>: <data.content>"', async (c) => {
    const err = await c.run();
    const code = WIRE[c.code] || err.data.code;
    expect(err.message.startsWith(`${code}: `), err.message).toBe(true);
    expect(err.message).toContain(err.data.content.replace(/\.$/, ''));
  });

  it.each(CASES)('$rule: the message ends with what to do next, the code and data unchanged (issue 36)', async (c) => {
    const err = await c.run();
    expect(err.code).toBe(c.code);
    expect(err.message, err.message).toMatch(/ Next: [^.]+/);
    expect(err.data.content).not.toContain('Next:');
  });

  it('the hold limit names the tool that frees a hold; a business-only call says only the business can', async () => {
    const byCode = async (rule: string) => (await CASES.find((c) => c.rule.startsWith(rule))!.run()).message;
    expect(await byCode('the active-hold limit')).toContain(
      'Next: release a hold no longer needed (usp_availability_release)',
    );
    expect(await byCode('usp_bookings_confirm called by a platform')).toContain('Next: only the business can do this');
  });

  it('a bad date names the field and the format: "invalid_request: start_date: must be a date (YYYY-MM-DD)..."', async () => {
    const err = await conn.callError('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: 'tomorrow',
      end_date: day(1),
    });
    expect(err.message).toMatch(/^invalid_request: start_date: must be a date \(YYYY-MM-DD\)/);
    expect(err.data).toMatchObject({ code: 'invalid_request', content: expect.stringContaining('start_date') });
  });

  it('a privileged call without a profile says to send one: "invalid_request: A platform profile is required..."', async () => {
    const err = await conn.callError('usp_waitlist_list', {
      _meta: { usp: { authorization: { mechanism: 'http_message_signature' } } },
    });
    expect(err.message).toMatch(/^invalid_request: A platform profile is required on privileged operations/);
    expect(err.data.content).toMatch(/^A platform profile is required/);
  });

  it('with neither profile nor credential, Streamable HTTP answers 401 naming resource_metadata (MCP authorization), its body -32006', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'usp_waitlist_list', arguments: {} },
      }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const body: any = await res.json();
    expect(body).toMatchObject({ id: 7, error: { code: -32006, data: { code: 'authentication_missing' } } });
    expect(body.error.message).toMatch(/^authentication_required: /);
  });
});

describe('an unknown service id in the path is a protocol error on MCP (spec-next 3.12.3, 9.4.3)', () => {
  it('usp_services_get with an unknown id -> -32602 with data.code service_not_found, not a result', async () => {
    const e = await conn.callError('usp_services_get', { service_id: 'svc_nope' });
    expect([e.code, e.data.code]).toEqual([-32602, 'service_not_found']);
    expect(e.data.content).toContain('usp_services_list');
  });
});

describe('business outcomes are results with messages and isError, never JSON-RPC errors (D3, D13)', () => {
  it('rescheduling a canceled booking -> result with messages[0].code invalid_transition and the booking as it is (spec-next 5.1.1, D2)', async () => {
    const b = await bookHaircut();
    expect(errorCodes(await conn.call('usp_bookings_cancel', { booking_id: b.id, ...meta() }))).toEqual([]);
    const [slot] = await haircutSlots(7);
    const r = await conn.call('usp_bookings_reschedule', { booking_id: b.id, slot_id: slot.id, ...meta() });
    expect([r.isError, errorCodes(r), r.structuredContent.booking.status]).toEqual([
      true,
      ['invalid_transition'],
      'canceled',
    ]);
    expect(r.structuredContent.messages[0].content).toContain('canceled');
  });

  it('a second booking of the same slot -> result with messages[0].code slot_unavailable', async () => {
    const [slot] = (
      await conn.call('usp_availability_query', { service_id: 'svc_massage_60', start_date: day(9), end_date: day(9) })
    ).structuredContent.slots;
    const args = { service_id: 'svc_massage_60', slot_id: slot.id, buyer: BUYER };
    const first = await conn.call('usp_bookings_create', { ...args, ...meta() });
    expect(errorCodes(first)).toEqual([]);
    const second = await conn.call('usp_bookings_create', { ...args, ...meta(OTHER_PLATFORM) });
    expect(second.isError).toBe(true);
    expect(second.structuredContent.messages[0]).toMatchObject({ type: 'error', code: 'slot_unavailable' });
    expect(second.structuredContent.usp).toBeDefined();
    expect(second.content[0].text).toContain('slot_unavailable');
  });

  it("reading another platform's booking -> -32602 with data.code booking_not_found (a 404 of the path, spec-next 9.4.1)", async () => {
    const b = await bookHaircut();
    const e = await conn.callError('usp_bookings_get', { booking_id: b.id, ...meta(OTHER_PLATFORM) });
    expect([e.code, e.data.code]).toEqual([-32602, 'booking_not_found']);
  });

  it('cancelling inside the no-cancellation window -> result with messages[0].code cancellation_not_allowed', async () => {
    const slots = (
      await conn.call('usp_availability_query', { service_id: 'svc_massage_60', start_date: day(0), end_date: day(0) })
    ).structuredContent.slots as any[];
    const soon = slots.find((s) => Date.parse(s.start) - t.clock.now() < 2 * 3_600_000);
    expect(soon, 'a massage slot starting within two hours (no_cancellation_after PT2H)').toBeDefined();
    const b = (
      await conn.call('usp_bookings_create', {
        service_id: 'svc_massage_60',
        slot_id: soon.id,
        buyer: BUYER,
        ...meta(),
      })
    ).structuredContent.booking;
    const r = await conn.call('usp_bookings_cancel', { booking_id: b.id, ...meta() });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.messages[0]).toMatchObject({ type: 'error', code: 'cancellation_not_allowed' });
  });
});

describe('_meta.usp.correlation_id joins a call to its result', () => {
  it('a correlation_id sent is echoed in result._meta.usp.correlation_id', async () => {
    const id = `corr-${randomUUID()}`;
    const r = await conn.call('usp_services_list', { _meta: { usp: { correlation_id: id } } });
    expect(r._meta?.usp?.correlation_id).toBe(id);
  });

  it('without one, the result still carries a generated correlation_id', async () => {
    const a = await conn.call('usp_services_list', {});
    const b = await conn.call('usp_services_list', {});
    expect(a._meta?.usp?.correlation_id).toEqual(expect.any(String));
    expect(a._meta.usp.correlation_id.length).toBeGreaterThan(0);
    expect(b._meta?.usp?.correlation_id).not.toBe(a._meta.usp.correlation_id);
  });

  it('a protocol error after the metadata was read carries the sent correlation_id in data', async () => {
    const id = `corr-${randomUUID()}`;
    const err = await conn.callError('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(45),
      _meta: { usp: { correlation_id: id } },
    });
    expect(err.data.code).toBe('range_too_wide');
    expect(err.data.correlation_id).toBe(id);
  });
});
