/**
 * The MCP door against the official OpenRPC document (spec MCP binding; CONFORMANCE §8, §10):
 * results of all 21 business tools validate against their OpenRPC result schemas; tools/list
 * carries exactly those tools with the OpenRPC parameter names, required sets and accepted
 * example/default values; descriptions are model-facing copy that says what to tell the person on
 * the money path; annotations tell read-only and destructive tools apart.
 */
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, OTHER_PLATFORM, PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import {
  assertValid,
  deepResolve,
  describeConformance,
  mcpToolNames,
  openrpcDoc,
  openrpcMethod,
  validateMcpParams,
  validateMcpResult,
  OPENRPC_ID,
} from '../support/spec.js';
import { connectMcp, errorCodes, meta, nyDate, type McpConn, type ToolResult } from './helpers.js';

/** Tools of ours beyond the OpenRPC document, under our own prefix (docs/DECISIONS.md: the buyer's history, the quote). */
const OUR_TOOLS = ['uspserver_bookings_list', 'uspserver_bookings_quote', 'uspserver_bookings_renew_payment'];

/** The newer text's feed-subscription methods, adopted beside the pinned document (checked against the newer OpenRPC in feed-subscription-tools.test.ts). */
const NEXT_TOOLS = [
  'usp_services_feed_subscription_get',
  'usp_services_feed_subscription_pause',
  'usp_services_feed_subscription_resume',
  'usp_services_feed_unsubscribe',
];

/** The OpenRPC business tools this server implements: every method except the discovery registry. */
const expectedTools = (): string[] => mcpToolNames().filter((n) => !n.startsWith('usp_registry_'));

const READ_ONLY = [
  'usp_services_list',
  'usp_services_get',
  'usp_services_lookup',
  'usp_services_feed',
  'usp_availability_query',
  'usp_bookings_get',
  'usp_waitlist_list',
  'usp_waitlist_get',
];
const DESTRUCTIVE = ['usp_bookings_cancel', 'usp_waitlist_leave', 'usp_waitlist_decline', 'usp_availability_release'];

/** The OpenRPC params of a method with `$ref`s resolved. */
function openrpcParams(tool: string): Array<{ name: string; required?: boolean; schema: any }> {
  const doc = openrpcDoc();
  return (openrpcMethod(tool).params as any[]).map((p) => {
    const cd = typeof p.$ref === 'string' ? deepResolve(p, { doc, id: OPENRPC_ID }) : p;
    return { ...cd, schema: deepResolve(cd.schema ?? {}, { doc, id: OPENRPC_ID }) };
  });
}

/** Every `examples` entry and `default` in a param schema, with the property path that leads to it. */
function sampleValues(schema: any, path: string[] = []): Array<{ path: string[]; value: unknown; kind: string }> {
  if (!schema || typeof schema !== 'object') return [];
  const out: Array<{ path: string[]; value: unknown; kind: string }> = [];
  if (Array.isArray(schema.examples)) for (const v of schema.examples) out.push({ path, value: v, kind: 'example' });
  if (schema.default !== undefined) out.push({ path, value: schema.default, kind: 'default' });
  for (const [k, sub] of Object.entries((schema.properties ?? {}) as Record<string, any>))
    out.push(...sampleValues(sub, [...path, k]));
  return out;
}

/**
 * Our schema for the member at `path` inside a property schema (following local `$ref`s of the
 * tool's inputSchema); a string when our schema has no such member and refuses unknown ones.
 */
function subSchema(root: any, node: any, path: string[]): any {
  const deref = (n: any): any => {
    while (n && typeof n.$ref === 'string' && n.$ref.startsWith('#/')) {
      n = n.$ref
        .slice(2)
        .split('/')
        .reduce((acc: any, k: string) => acc?.[decodeURIComponent(k).replace(/~1/g, '/').replace(/~0/g, '~')], root);
    }
    return n;
  };
  let cur = deref(node);
  for (const [i, k] of path.entries()) {
    const next = cur?.properties?.[k];
    if (next === undefined) {
      if (cur?.additionalProperties === false) return `no member ${path.slice(0, i + 1).join('.')}`;
      return {};
    }
    cur = deref(next);
  }
  return cur;
}

/**
 * Members we accept beyond the OpenRPC params, each backed by the specification text that the
 * OpenRPC document leaves out: §5.3.3 lists `delivery_address` among the mutable fields of Update
 * Booking, and §5.3.4 gives Confirm Booking an optional `notes` from the business; the newer
 * text's query timezones add `date_bounds_timezone` to the availability query.
 */
const SPEC_EXTRAS: Record<string, string[]> = {
  usp_bookings_update: ['delivery_address'],
  usp_bookings_confirm: ['notes'],
  usp_availability_query: ['date_bounds_timezone'],
  // Ours (the spec's entry has no party size): a party waits, and is offered places, together (DECISIONS).
  usp_waitlist_join: ['party_size'],
};

describeConformance('MCP tool results and tool definitions conform to the OpenRPC document', () => {
  let t: TestServer;
  let conn: McpConn;
  let tools: any[];
  let listedNames: string[];
  /** tool name -> structuredContents of successful results seen */
  const successes = new Map<string, unknown[]>();
  const failures: string[] = [];

  async function call(tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    assertValid(validateMcpParams(tool, args), `our own ${tool} arguments against the OpenRPC params`);
    const r = await conn.call(tool, args);
    expect(r.structuredContent?.usp, `${tool} structuredContent.usp`).toBeDefined();
    expect(Array.isArray(r.structuredContent?.messages), `${tool} structuredContent.messages`).toBe(true);
    if (errorCodes(r).length === 0) {
      const list = successes.get(tool) ?? [];
      list.push(r.structuredContent);
      successes.set(tool, list);
      const errs = validateMcpResult(tool, r.structuredContent);
      if (errs.length > 0) failures.push(`${tool}:\n  - ${errs.join('\n  - ')}`);
    }
    return r;
  }

  const ok = async (tool: string, args: Record<string, unknown>): Promise<any> => {
    const r = await call(tool, args);
    expect(errorCodes(r), `${tool} error messages: ${JSON.stringify(r.structuredContent?.messages)}`).toEqual([]);
    return r.structuredContent;
  };

  beforeAll(async () => {
    t = await startTestServer();
    conn = await connectMcp('v2', 'memory', t);
    const listed = (await conn.client.listTools()).tools;
    expect(listed.filter((tl: any) => OUR_TOOLS.includes(tl.name)).map((tl: any) => tl.name)).toEqual(OUR_TOOLS);
    expect(listed.filter((tl: any) => NEXT_TOOLS.includes(tl.name)).map((tl: any) => tl.name)).toEqual(NEXT_TOOLS);
    tools = listed.filter((tl: any) => !OUR_TOOLS.includes(tl.name) && !NEXT_TOOLS.includes(tl.name));
    listedNames = listed.map((tl: any) => tl.name);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await t?.close();
  });

  it('a scenario touching all 21 tools yields results that validate against the OpenRPC result schemas', async () => {
    const day = (n: number) => nyDate(t.clock.now(), n);
    const key = () => ({ idempotency_key: randomUUID() });

    // Catalog
    await ok('usp_services_list', {});
    await ok('usp_services_list', { query: 'massage', pagination: { limit: 2 } });
    await ok('usp_services_get', { service_id: 'svc_haircut' });
    await ok('usp_services_lookup', { ids: ['svc_haircut', 'svc_massage_60'] });
    await ok('usp_services_feed', { limit: 5 });
    await ok('usp_services_feed_subscribe', {
      callback_url: 'https://platform.example/hooks/catalog',
      ...meta(PLATFORM, key()),
    });

    // Availability and holds
    const slots = (
      await ok('usp_availability_query', { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) })
    ).slots as any[];
    const starts = [...new Set(slots.map((s) => s.start))];
    const at = (i: number) => slots.find((s) => s.start === starts[i]);
    const hold = (
      await ok('usp_availability_hold', { service_id: 'svc_haircut', slot_id: at(0).id, ...meta(PLATFORM, key()) })
    ).hold;
    await ok('usp_availability_release', { hold_id: hold.id, ...meta(PLATFORM, key()) });

    // A booking through its life
    const booking = (
      await ok('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: at(1).id,
        buyer: BUYER,
        ...meta(PLATFORM, key()),
      })
    ).booking;
    await ok('usp_bookings_get', { booking_id: booking.id, ...meta() });
    await ok('usp_bookings_update', {
      booking_id: booking.id,
      notes: 'Prefers a quiet chair.',
      ...meta(PLATFORM, key()),
    });
    await ok('usp_bookings_reschedule', { booking_id: booking.id, slot_id: at(2).id, ...meta(PLATFORM, key()) });
    await ok('usp_bookings_cancel', { booking_id: booking.id, reason: 'conformance run', ...meta(PLATFORM, key()) });

    // Manual confirmation by the business itself
    const [consult] = (
      await ok('usp_availability_query', { service_id: 'svc_color_consult', start_date: day(3), end_date: day(3) })
    ).slots;
    const pending = (
      await ok('usp_bookings_create', {
        service_id: 'svc_color_consult',
        slot_id: consult.id,
        buyer: BUYER,
        ...meta(PLATFORM, key()),
      })
    ).booking;
    expect(pending.status).toBe('pending');
    const confirmed = (
      await ok('usp_bookings_confirm', {
        booking_id: pending.id,
        ...meta(PLATFORM, { authorization: { mechanism: 'api_key', credential: ADMIN_KEY } }),
      })
    ).booking;
    expect(confirmed.status).toBe('confirmed');

    // Paid at booking
    const [massage] = (
      await ok('usp_availability_query', { service_id: 'svc_massage_60', start_date: day(2), end_date: day(2) })
    ).slots;
    const unpaid = (
      await ok('usp_bookings_create', {
        service_id: 'svc_massage_60',
        slot_id: massage.id,
        buyer: BUYER,
        ...meta(PLATFORM, key()),
      })
    ).booking;
    const due = unpaid.actions[0].payment_context;
    await ok('usp_bookings_confirm_payment', {
      booking_id: unpaid.id,
      payment_result: {
        status: 'paid',
        transaction_id: 'txn_conformance',
        amount_paid: due.amount_due,
        currency: due.currency,
        provider: 'test',
      },
      ...meta(PLATFORM, key()),
    });

    // Waitlist: fill a class, queue three, free a place, decline, accept, leave
    const [yoga] = (
      await ok('usp_availability_query', { service_id: 'svc_yoga_class', start_date: day(1), end_date: day(7) })
    ).slots;
    const total = yoga.capacity.remaining as number;
    await ok('usp_bookings_create', {
      service_id: 'svc_yoga_class',
      slot_id: yoga.id,
      buyer: BUYER,
      party_size: total - 1,
      ...meta(PLATFORM, key()),
    });
    const single = (
      await ok('usp_bookings_create', {
        service_id: 'svc_yoga_class',
        slot_id: yoga.id,
        buyer: BUYER,
        ...meta(OTHER_PLATFORM, key()),
      })
    ).booking;
    const join = async (n: number) =>
      (
        await ok('usp_waitlist_join', {
          service_id: 'svc_yoga_class',
          slot_id: yoga.id,
          buyer: { ...BUYER, email: `w${n}@example.com` },
          ...meta(PLATFORM, key()),
        })
      ).entry;
    const [e1, e2, e3] = [await join(1), await join(2), await join(3)];
    await ok('usp_waitlist_list', { service_id: 'svc_yoga_class', ...meta() });
    await ok('usp_bookings_cancel', { booking_id: single.id, ...meta(OTHER_PLATFORM, key()) });
    expect((await ok('usp_waitlist_get', { entry_id: e1.id, ...meta() })).entry.status).toBe('offered');
    await ok('usp_waitlist_decline', { entry_id: e1.id, ...meta(PLATFORM, key()) });
    expect((await ok('usp_waitlist_get', { entry_id: e2.id, ...meta() })).entry.status).toBe('offered');
    await ok('usp_waitlist_accept', { entry_id: e2.id, ...meta(PLATFORM, key()) });
    await ok('usp_waitlist_leave', { entry_id: e3.id, ...meta(PLATFORM, key()) });

    // An unknown id in the path is a protocol error, not a result (spec-next 9.4.1, 9.4.3).
    const missing = await conn.callError('usp_bookings_get', { booking_id: 'bkg_does_not_exist', ...meta() });
    expect([missing.code, missing.data.code]).toEqual([-32602, 'booking_not_found']);

    expect([...successes.keys()].sort()).toEqual(expectedTools().sort());
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it("every listed tool outside the OpenRPC document is under our uspserver_ prefix or one of the newer text's feed-subscription methods; the former usp_bookings_list answers but is not listed", async () => {
    const spec = new Set(mcpToolNames());
    expect(
      listedNames.filter((n) => !spec.has(n) && !NEXT_TOOLS.includes(n)).every((n) => n.startsWith('uspserver_')),
    ).toBe(true);
    expect(listedNames).not.toContain('usp_bookings_list');
    // Past the name: the platform has no linked buyer account, so the operation itself refuses (an unknown name would be unknown_tool).
    const former = await conn.call('usp_bookings_list', meta()).then(
      (r) => JSON.stringify(r),
      (e) => `${e}`,
    );
    expect(former).toContain('usp:history');
    expect(former).not.toContain('unknown_tool');
  });

  it('tools/list gives exactly the 21 business tools of the OpenRPC document (no usp_registry_* tools), besides our own uspserver_ tools', () => {
    const names = tools.map((tl) => tl.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(expectedTools().sort());
    expect(names).toHaveLength(21);
  });

  it('each inputSchema has the OpenRPC param names as properties and requires what the OpenRPC requires, except what the server supplies (_meta)', () => {
    for (const tool of tools) {
      const params = openrpcParams(tool.name);
      const ours = Object.keys(tool.inputSchema.properties ?? {});
      for (const p of params)
        expect(ours, `${tool.name}: inputSchema lacks the OpenRPC param "${p.name}"`).toContain(p.name);
      const theirs = params.map((p) => p.name);
      for (const name of ours)
        expect(
          [...theirs, '_meta', ...(SPEC_EXTRAS[tool.name] ?? [])],
          `${tool.name}: inputSchema property "${name}" is not an OpenRPC param`,
        ).toContain(name);
      // _meta carries the profile (supplied on stdio and by an OAuth token) and the idempotency key (generated when absent).
      const required = params
        .filter((p) => p.required === true && p.name !== '_meta')
        .map((p) => p.name)
        .sort();
      expect([...(tool.inputSchema.required ?? [])].sort(), `${tool.name}: required params`).toEqual(required);
      expect(
        JSON.stringify(tool.inputSchema.properties._meta),
        `${tool.name}: nothing in _meta is required`,
      ).not.toContain('"required"');
    }
  });

  it('the _meta.usp every OpenRPC tier names (profile, idempotency_key, if_match, authorization, correlation_id) is accepted by our inputSchema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const sample = (name: string) =>
      name === 'authorization'
        ? { mechanism: 'http_message_signature', credential: 'x' }
        : name === 'idempotency_key'
          ? randomUUID()
          : 'https://platform.example/profile.json';
    let checked = 0;
    for (const tool of tools) {
      const meta = openrpcParams(tool.name).find((p) => p.name === '_meta');
      const members = Object.keys(meta?.schema?.properties?.usp?.properties ?? {});
      if (members.length === 0) continue;
      const validate = ajv.compile(tool.inputSchema.properties._meta);
      const value = { usp: Object.fromEntries(members.map((m) => [m, sample(m)])) };
      expect(validate(value), `${tool.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(15);
  });

  it("each OpenRPC param's examples and default values are accepted by our inputSchema", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    let checked = 0;
    const rejected: string[] = [];
    for (const tool of tools) {
      for (const p of openrpcParams(tool.name)) {
        const ours = tool.inputSchema.properties?.[p.name];
        if (!ours) continue; // reported by the previous test
        for (const sample of sampleValues(p.schema)) {
          checked++;
          const where = `${tool.name}.${[p.name, ...sample.path].join('.')} ${sample.kind} ${JSON.stringify(sample.value)}`;
          const target = subSchema(tool.inputSchema, ours, sample.path);
          if (typeof target === 'string') {
            rejected.push(`${where}: our inputSchema has ${target}`);
            continue;
          }
          const defs = Object.fromEntries(
            ['definitions', '$defs']
              .filter((k) => tool.inputSchema[k] !== undefined)
              .map((k) => [k, tool.inputSchema[k]]),
          );
          const validate = ajv.compile({ ...target, ...defs });
          if (!validate(sample.value)) rejected.push(`${where}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(rejected, rejected.join('\n')).toEqual([]);
  });

  it('every tool has a non-empty description under 1200 characters', () => {
    for (const tool of tools) {
      expect(typeof tool.description, tool.name).toBe('string');
      expect(tool.description.trim().length, `${tool.name} description`).toBeGreaterThan(0);
      expect(tool.description.length, `${tool.name} description length`).toBeLessThan(1200);
    }
  });

  it('money-path descriptions say what the assistant must tell the person', () => {
    const d = Object.fromEntries(tools.map((tl) => [tl.name, tl.description as string]));
    // create: hand over the payment link, and it is not confirmed until paid
    expect(d.usp_bookings_create).toMatch(/continue_url|payment link/i);
    expect(d.usp_bookings_create).toMatch(/not confirmed[^.]*until/i);
    // retries with the same idempotency key
    for (const tool of ['usp_bookings_create', 'usp_bookings_cancel', 'usp_bookings_confirm_payment']) {
      expect(d[tool], tool).toMatch(/idempotency_key/);
      expect(d[tool], tool).toMatch(/retr(y|ies)/i);
    }
    // hold expiry
    expect(d.usp_availability_hold).toMatch(/expire/i);
    // cancellation fee
    expect(d.usp_bookings_cancel).toMatch(/fee/i);
    // re-read the booking before acting on money
    const reRead =
      /money|payment|fee|refund/i.test(d.usp_bookings_get) || /usp_bookings_get/.test(d.usp_bookings_confirm_payment);
    expect(
      reRead,
      'usp_bookings_get or usp_bookings_confirm_payment tells the model to read the booking before acting on money',
    ).toBe(true);
  });

  it('usp_bookings_confirm_payment says when to call it (own processor only) and that a continue_url checkout needs no call', () => {
    const d = tools.find((tl) => tl.name === 'usp_bookings_confirm_payment')!.description as string;
    // Who calls it: only a platform that collected the money through its own payment processor.
    expect(d).toMatch(/^Only for a platform that took the payment through its own processor/);
    // The hosted checkout: give the person the continue_url and do not call this tool.
    expect(d).toMatch(/Not when the person pays on the business's checkout page \(continue_url\): give them that link/);
    // The business learns of that payment by itself; read the booking to see it confirmed.
    expect(d).toMatch(/the business confirms by itself[^.]*usp_bookings_get/);
  });

  it('annotations: read-only tools have readOnlyHint true; cancel, leave, decline and release have destructiveHint true', () => {
    const byName = new Map(tools.map((tl) => [tl.name, tl]));
    for (const name of READ_ONLY)
      expect(byName.get(name)?.annotations?.readOnlyHint, `${name} readOnlyHint`).toBe(true);
    for (const name of expectedTools().filter((n) => !READ_ONLY.includes(n)))
      expect(byName.get(name)?.annotations?.readOnlyHint, `${name} readOnlyHint`).toBe(false);
    for (const name of DESTRUCTIVE)
      expect(byName.get(name)?.annotations?.destructiveHint, `${name} destructiveHint`).toBe(true);
  });
});
