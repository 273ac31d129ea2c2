/**
 * Robustness of the MCP door (spec §9.4: malformed requests are protocol errors): a seeded stream
 * of malformed `tools/call` requests (wrong types for every argument, nested garbage, 100 KB
 * strings, unknown tools, arguments that are not objects, bad `_meta`) sent as raw JSON-RPC over
 * one Streamable HTTP session and one stdio session. Every request gets either a JSON-RPC error
 * with an integer code or a result whose structuredContent carries `messages`; the session and the
 * server survive, and a normal call on the same session still works afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { RawStdioSession, connectMcp, postRaw, waitFor, type McpConn, type RawRpcResponse } from './helpers.js';
import { ensureBuilt } from '../support/build.js';

const TOOLS = [
  'usp_services_list',
  'usp_services_get',
  'usp_services_lookup',
  'usp_services_feed',
  'usp_services_feed_subscribe',
  'usp_availability_query',
  'usp_availability_hold',
  'usp_availability_release',
  'usp_bookings_create',
  'usp_bookings_get',
  'usp_bookings_update',
  'usp_bookings_confirm',
  'usp_bookings_cancel',
  'usp_bookings_reschedule',
  'usp_bookings_confirm_payment',
  'usp_waitlist_join',
  'usp_waitlist_list',
  'usp_waitlist_get',
  'usp_waitlist_leave',
  'usp_waitlist_accept',
  'usp_waitlist_decline',
];

/** Argument names per tool (the union of what the tools accept, so every one gets a wrong value). */
const FIELDS = [
  'service_id',
  'slot_id',
  'hold_id',
  'booking_id',
  'entry_id',
  'buyer',
  'recipient',
  'party_size',
  'spots',
  'start_date',
  'end_date',
  'timezone',
  'resource_id',
  'location_id',
  'locale',
  'cursor',
  'limit',
  'query',
  'filters',
  'context',
  'pagination',
  'ids',
  'callback_url',
  'categories',
  'events',
  'reason',
  'notes',
  'payment_result',
  'preferred_slots',
  'status',
  'delivery_address',
  'post_payment_return_request',
];

const HUGE = 'x'.repeat(100 * 1024);

function deep(levels: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const special = fc.constantFrom<unknown>(
  HUGE,
  `${'é'.repeat(30_000)}\u0000\uffff`,
  deep(400),
  -1,
  0,
  1e308,
  -0.5,
  2 ** 53 + 2,
  '',
  ' ',
  '2026-02-30',
  '9999-99-99',
  'bkg_' + 'z'.repeat(600),
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'),
  ['a', 1, null],
  { first_name: 42, email: ['x'] },
  { status: 'paid', amount_paid: 'lots', currency: 7 },
  true,
  null,
);

const garbage: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: special },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

const badMeta: fc.Arbitrary<unknown> = fc.oneof(
  garbage,
  fc.record({ usp: garbage }),
  fc.record({ usp: fc.record({ profile: garbage }) }),
  fc.record({
    usp: fc.record({
      profile: fc.constantFrom(PLATFORM, 'ftp://x.example/p', 'http://platform.example/p', 'not a url', HUGE),
    }),
  }),
  fc.record({
    usp: fc.record(
      { profile: fc.constant(PLATFORM), idempotency_key: garbage, if_match: garbage, correlation_id: garbage },
      { requiredKeys: ['profile'] },
    ),
  }),
  fc.record({ usp: fc.record({ profile: fc.constant(PLATFORM), authorization: garbage }) }),
  fc.record({
    usp: fc.record({
      profile: fc.constant(PLATFORM),
      authorization: fc.record({ mechanism: garbage, credential: garbage, proof: garbage }, { requiredKeys: [] }),
    }),
  }),
  fc
    .dictionary(fc.string({ maxLength: 10 }), garbage, { maxKeys: 3 })
    .map((usp) => ({ usp: { profile: PLATFORM, ...usp } })),
);

/** `params` of a malformed tools/call (occasionally not even an object). */
const callParams: fc.Arbitrary<unknown> = fc.oneof(
  // a known tool with wrong values for its arguments and a bad _meta
  {
    weight: 6,
    arbitrary: fc.record({
      name: fc.constantFrom(...TOOLS),
      arguments: fc
        .tuple(
          fc.subarray(FIELDS, { minLength: 1 }),
          fc.array(garbage, { minLength: FIELDS.length, maxLength: FIELDS.length }),
          fc.option(badMeta, { nil: undefined }),
        )
        .map(([fields, values, m]) => {
          const args: Record<string, unknown> = {};
          fields.forEach((f, i) => (args[f] = values[i]));
          if (m !== undefined) args._meta = m;
          return args;
        }),
    }),
  },
  // a known tool whose arguments are not an object
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom(...TOOLS),
      arguments: fc.oneof(
        fc.array(garbage, { maxLength: 3 }),
        fc.constant(null),
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.constant(HUGE),
      ),
    }),
  },
  // an unknown or malformed tool name
  {
    weight: 2,
    arbitrary: fc.record(
      {
        name: fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constant(HUGE),
          fc.integer(),
          fc.constant(null),
          fc.array(fc.string()),
        ),
        arguments: garbage,
      },
      { requiredKeys: [] },
    ),
  },
  // only bad _meta on an otherwise plausible call
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('usp_services_list', 'usp_bookings_get', 'usp_waitlist_list'),
      arguments: badMeta.map((m) => ({ booking_id: 'bkg_x', _meta: m })),
    }),
  },
  // params that are not an object at all
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.array(garbage, { maxLength: 3 }), fc.string(), fc.integer()) },
);

function requests(seed: number, count: number): string[] {
  return fc
    .sample(callParams, { seed, numRuns: count })
    .map((params, i) => JSON.stringify({ jsonrpc: '2.0', id: `fz-${i}`, method: 'tools/call', params }));
}

interface Tally {
  errors: Map<number, number>;
  results: number;
  bad: string[];
}

function judge(tally: Tally, id: string, request: string, reply: RawRpcResponse | undefined): void {
  const show = () => `${id} ${request.slice(0, 300)} -> ${JSON.stringify(reply)?.slice(0, 400)}`;
  if (!reply) {
    tally.bad.push(`no reply: ${show()}`);
    return;
  }
  if (reply.error !== undefined) {
    if (typeof reply.error.code !== 'number' || !Number.isInteger(reply.error.code))
      tally.bad.push(`non-integer error code: ${show()}`);
    else tally.errors.set(reply.error.code, (tally.errors.get(reply.error.code) ?? 0) + 1);
    if (reply.error.code === -32603) tally.bad.push(`internal error: ${show()}`);
    return;
  }
  const sc = reply.result?.structuredContent;
  if (!sc || !Array.isArray(sc.messages) || sc.usp === undefined)
    tally.bad.push(`result without usp/messages: ${show()}`);
  else tally.results++;
}

async function pool<T>(items: T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

describe('malformed tools/call requests over Streamable HTTP never crash the server or end the session', () => {
  let t: TestServer;
  let conn: McpConn;
  beforeAll(async () => {
    t = await startTestServer();
    conn = await connectMcp('v2', 'http', t.url);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await t?.close();
  });

  it('1,000 seeded malformed calls each get a JSON-RPC error or a result with messages; the session still serves usp_services_list', async () => {
    const session = {
      sessionId: conn.transport.sessionId as string,
      protocolVersion: conn.transport.protocolVersion as string | undefined,
    };
    expect(session.sessionId).toEqual(expect.any(String));
    const reqs = requests(20261130, 1000);
    const tally: Tally = { errors: new Map(), results: 0, bad: [] };
    await pool(reqs, 6, async (body, i) => {
      const res = await postRaw(t.url, session, body);
      // A message that is not valid JSON-RPC at all (params not an object) is refused by the transport
      // with HTTP 400, still as a JSON-RPC error; every other request is answered with 200.
      const reply = res.messages.find((m) => m.id === `fz-${i}`);
      // 401: a privileged tool with no credential (MCP authorization), its body still a JSON-RPC error.
      if (res.status !== 200 && !((res.status === 400 || res.status === 401) && reply?.error !== undefined)) {
        tally.bad.push(`HTTP ${res.status} for fz-${i}: ${body.slice(0, 200)} -> ${res.text.slice(0, 200)}`);
      }
      judge(tally, `fz-${i}`, body, reply);
    });
    expect(tally.bad.slice(0, 10), `${tally.bad.length} bad replies:\n${tally.bad.slice(0, 10).join('\n')}`).toEqual(
      [],
    );
    expect(tally.errors.size).toBeGreaterThan(1);
    expect([...tally.errors.values()].reduce((a, b) => a + b, 0) + tally.results).toBe(1000);

    const after = await conn.call('usp_services_list', {});
    expect(after.structuredContent.messages).toEqual([]);
    expect(after.structuredContent.services.length).toBeGreaterThan(0);
    const profile = await fetch(new URL('/.well-known/usp', t.url));
    expect(profile.status).toBe(200);
  }, 60_000);
});

describe('malformed tools/call requests over stdio never crash the server process or end the session', () => {
  let s: RawStdioSession;
  beforeAll(async () => {
    ensureBuilt();
    s = new RawStdioSession();
    const init = await s.initialize();
    expect(init.result?.serverInfo?.name).toBe('usp-server');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('a line that is not JSON gets -32700 with a null id; a message whose params is not an object gets -32600 with its id', async () => {
    const before = s.orphans.length;
    s.child.stdin.write('this is not json\n');
    await waitFor(() => s.orphans.length > before);
    expect(s.orphans[before].error).toMatchObject({ code: -32700 });

    for (const params of ['[]', '"x"', 'null', '42']) {
      const id = `np-${params}`;
      const reply = await s.sendLine(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":${params}}`,
        id,
      );
      expect(reply.error, `params ${params}`).toMatchObject({ code: -32600 });
    }
    expect(s.alive).toBe(true);
  });

  it('300 seeded malformed calls each get a JSON-RPC error or a result with messages; the process lives and serves usp_services_list', async () => {
    const reqs = requests(4242, 300);
    const tally: Tally = { errors: new Map(), results: 0, bad: [] };
    await pool(reqs, 4, async (body, i) => {
      judge(tally, `fz-${i}`, body, await s.sendLine(body, `fz-${i}`));
    });
    expect(tally.bad.slice(0, 10), `${tally.bad.length} bad replies:\n${tally.bad.slice(0, 10).join('\n')}`).toEqual(
      [],
    );
    expect(s.unparsable).toEqual([]);
    expect(s.alive).toBe(true);

    const after = await s.request('after', 'tools/call', { name: 'usp_services_list', arguments: {} });
    expect(after.result?.structuredContent?.messages).toEqual([]);
    expect(after.result?.structuredContent?.services?.length).toBeGreaterThan(0);
    expect(s.alive).toBe(true);
  }, 60_000);
});
