/**
 * The REST binding contract (spec §8.2, §9.1, §9.4): discovery, the published OpenAPI document,
 * headers on every response, problem details for every malformed request, and identity headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, jsonDoorRows } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';

const ERRORS = 'https://usp-protocol.dev/errors/';
const MAX_BODY = 64 * 1024;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Res = { status: number; body: any; headers: Headers };

/** A problem details answer: right media type, a USP error type URI, the status echoed, no stack trace. */
function expectProblem(res: Res, status: number) {
  expect(res.status).toBe(status);
  expect(res.status).not.toBe(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(typeof res.body).toBe('object');
  // Plain HTTP conditions are RFC 9457 about:blank (spec-next 9.1, 9.4.3); the rest carry a USP type.
  if (status === 405)
    expect([res.body.type, res.body.title, res.body.code]).toEqual(['about:blank', 'Method Not Allowed', undefined]);
  else if (status === 404)
    expect([res.body.type, res.body.title, res.body.code]).toEqual(['about:blank', 'Not Found', undefined]);
  else expect(res.body.type.startsWith(ERRORS)).toBe(true);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.title).toBe('string');
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\bat\s+\S+\s+\(|\.ts:\d+|\.js:\d+|node_modules|ZodError|SyntaxError|stack/);
}

async function firstSlot(serviceId: string, n = 1): Promise<string> {
  const res = await t.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: day(n), end_date: day(n), limit: 1 },
    { profile: null },
  );
  return res.body.slots[0].id;
}

describe('discovery: the business profile at /.well-known/usp (§8.2)', () => {
  it('is served as cacheable JSON (public, max-age >= 60)', async () => {
    const res = await t.call('GET', '/.well-known/usp', undefined, { profile: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const cc = res.headers.get('cache-control') ?? '';
    expect(cc).toMatch(/\bpublic\b/);
    expect(cc).not.toMatch(/no-store|no-cache|private/);
    const maxAge = Number(/max-age=(\d+)/.exec(cc)?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(60);
  });

  it('declares the REST binding endpoint, the capabilities (holds: true) and the sandbox authorization policy', async () => {
    const { body } = await t.call('GET', '/.well-known/usp', undefined, { profile: null });
    expect(body.usp.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const bindings = body.usp.services['dev.usp-protocol.services'];
    const rest = bindings.find((b: { transport: string }) => b.transport === 'rest');
    expect(rest).toBeDefined();
    expect(rest.endpoint).toBe(t.url);
    expect(rest.schema.startsWith('https://usp-protocol.dev/')).toBe(true);
    expect(rest.spec.startsWith('https://usp-protocol.dev/')).toBe(true);
    const caps = body.usp.capabilities;
    for (const key of [
      'dev.usp-protocol.services.catalog',
      'dev.usp-protocol.services.availability',
      'dev.usp-protocol.services.bookings',
      'dev.usp-protocol.services.waitlist',
    ]) {
      expect(caps[key]?.[0]?.version).toBe(body.usp.version);
    }
    expect(caps['dev.usp-protocol.services.availability'][0].holds).toBe(true);
    expect(body.usp.business).toMatchObject({
      name: 'Maple & Pine Salon and Studio',
      timezone: 'America/New_York',
      currency: 'USD',
    });
    expect(body.authorization.privileged_operations_require_authentication).toBe(false);
    expect(body.authorization.accepted_mechanisms.length).toBeGreaterThan(0);
  });
});

describe('our extensions are advertised in our own namespace (spec 2.5, 11)', () => {
  it("the profile lists dev.usp-server.services.bookings extending bookings, with spec and schema on our own origin, and no other key outside the spec's", async () => {
    const { body } = await t.call('GET', '/.well-known/usp', undefined, { profile: null });
    const caps = body.usp.capabilities;
    expect(caps['dev.usp-server.services.bookings']).toEqual([
      {
        version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        spec: expect.stringMatching(/^https:\/\/usp-server\.dev\//),
        schema: expect.stringMatching(/^https:\/\/usp-server\.dev\//),
        extends: 'dev.usp-protocol.services.bookings',
      },
    ]);
    for (const key of Object.keys(caps))
      expect(key.startsWith('dev.usp-protocol.services.') || key.startsWith('dev.usp-server.'), key).toBe(true);
  });

  it('/openapi.json has GET /ext/usp-server/bookings, and GET /bookings only as deprecated', async () => {
    const { body } = await t.call('GET', '/openapi.json', undefined, { profile: null });
    expect(body.paths['/ext/usp-server/bookings'].get).toMatchObject({
      operationId: 'list_buyer_bookings',
      'x-mcp-tool': 'uspserver_bookings_list',
    });
    expect(body.paths['/ext/usp-server/bookings'].get.deprecated).toBeUndefined();
    expect(body.paths['/bookings'].get).toMatchObject({ deprecated: true });
    expect(body.paths['/bookings'].post.deprecated).toBeUndefined();
  });
});

describe('the published OpenAPI document covers the operations table', () => {
  it('/openapi.json is served and lists every path and method of the table the JSON doors serve', async () => {
    const res = await t.call('GET', '/openapi.json', undefined, { profile: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(jsonDoorRows(OPERATIONS).length).toBeGreaterThan(OPERATIONS.length - 5);
    for (const op of jsonDoorRows(OPERATIONS)) {
      const item = res.body.paths[op.rest.path];
      expect(item, `${op.rest.path} missing`).toBeDefined();
      expect(item[op.rest.method.toLowerCase()]?.operationId, `${op.rest.method} ${op.rest.path}`).toBe(op.name);
    }
  });
});

describe('headers and envelope on every response (§8.3, §10 infrastructure)', () => {
  it('success answers carry nosniff and a usp envelope with version and capabilities', async () => {
    const calls: Res[] = [
      await t.call('POST', '/services/list', {}, { profile: null }),
      await t.call('GET', '/services/svc_haircut', undefined, { profile: null }),
      await t.call('GET', '/services/feed', undefined, { profile: null }),
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) },
        { profile: null },
      ),
      await t.call('POST', '/waitlist/list', {}),
    ];
    for (const res of calls) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.body.usp.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const caps = Object.entries(res.body.usp.capabilities);
      expect(caps.length).toBeGreaterThan(0);
      for (const [key, versions] of caps) {
        expect(key.startsWith('dev.usp-protocol.')).toBe(true);
        expect((versions as Array<{ version: string }>)[0].version).toBe(res.body.usp.version);
      }
    }
  });

  it('problems, 404s and the profile also carry nosniff', async () => {
    for (const res of [
      await t.call('GET', '/.well-known/usp', undefined, { profile: null }),
      await t.call('GET', '/openapi.json', undefined, { profile: null }),
      await t.call('GET', '/no/such/thing', undefined, { profile: null }),
      await t.call('POST', '/services/list', undefined, { profile: null, rawBody: '{' }),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('USP-Correlation-Id is echoed when sent', async () => {
    const id = 'corr-7f9d0c2e-1234';
    const ok = await t.call('POST', '/services/list', {}, { profile: null, headers: { 'USP-Correlation-Id': id } });
    expect(ok.headers.get('usp-correlation-id')).toBe(id);
    const bad = await t.call('POST', '/services/list', undefined, {
      profile: null,
      rawBody: '[',
      headers: { 'USP-Correlation-Id': id },
    });
    expect(bad.headers.get('usp-correlation-id')).toBe(id);
  });
});

interface BadCase {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  status: number;
  /** A field the problem names in `errors[].field` or in `detail`. */
  field?: string;
  headerCheck?: (h: Headers) => void;
}

const BAD_INPUT: BadCase[] = [
  { name: 'malformed JSON', method: 'POST', path: '/services/list', rawBody: '{"query": "hair', status: 400 },
  {
    name: 'body is an array',
    method: 'POST',
    path: '/availability/query',
    rawBody: '[{"service_id":"svc_haircut"}]',
    status: 400,
  },
  { name: 'body is a JSON string', method: 'POST', path: '/services/list', rawBody: '"hello"', status: 400 },
  {
    name: 'wrong type (query is a number)',
    method: 'POST',
    path: '/services/list',
    body: { query: 42 },
    status: 400,
    field: 'query',
  },
  {
    name: 'wrong type (party_size is a string)',
    method: 'POST',
    path: '/availability/query',
    body: { service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1), party_size: 'two' },
    status: 400,
    field: 'party_size',
  },
  {
    name: 'missing required field',
    method: 'POST',
    path: '/availability/query',
    body: { start_date: day(1), end_date: day(1) },
    status: 400,
    field: 'service_id',
  },
  {
    name: 'missing nested required field (buyer.email)',
    method: 'POST',
    path: '/bookings',
    body: { service_id: 'svc_haircut', slot_id: 'slot_x', buyer: { first_name: 'A', last_name: 'B' } },
    status: 400,
    field: 'buyer.email',
  },
  {
    name: 'negative party_size',
    method: 'POST',
    path: '/availability/query',
    body: { service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1), party_size: -1 },
    status: 400,
    field: 'party_size',
  },
  {
    name: 'malformed date',
    method: 'POST',
    path: '/availability/query',
    body: { service_id: 'svc_haircut', start_date: '2026-13-45', end_date: day(1) },
    status: 400,
    field: 'start_date',
  },
  {
    name: 'huge string over its limit',
    method: 'POST',
    path: '/services/list',
    body: { query: 'x'.repeat(5000) },
    status: 400,
    field: 'query',
  },
  {
    name: 'huge id over its limit',
    method: 'GET',
    path: `/services/${'s'.repeat(600)}`,
    status: 400,
    field: 'service_id',
  },
  {
    name: 'unknown enum value for waitlist status',
    method: 'POST',
    path: '/waitlist/list',
    body: { status: 'sleeping' },
    status: 400,
    field: 'status',
  },
  {
    name: 'pagination limit out of range',
    method: 'POST',
    path: '/services/list',
    body: { pagination: { limit: 0 } },
    status: 400,
    field: 'pagination.limit',
  },
  {
    name: 'wrong content-type',
    method: 'POST',
    path: '/services/list',
    rawBody: '{}',
    headers: { 'Content-Type': 'text/plain' },
    status: 415,
  },
  {
    name: 'form-encoded body',
    method: 'POST',
    path: '/availability/query',
    rawBody: 'service_id=svc_haircut',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    status: 415,
  },
  {
    name: 'oversized body (over 64 KiB)',
    method: 'POST',
    path: '/services/list',
    rawBody: JSON.stringify({ query: 'a', context: { blob: 'b'.repeat(MAX_BODY) } }),
    status: 413,
  },
  { name: 'unknown path', method: 'GET', path: '/nothing/here', status: 404 },
  { name: 'unknown nested path', method: 'POST', path: '/bookings/bkg_1/teleport', body: {}, status: 404 },
  {
    name: 'wrong method',
    method: 'PUT',
    path: '/services/list',
    body: {},
    status: 405,
    headerCheck: (h) => expect(h.get('allow')).toBe('POST'),
  },
  {
    name: 'wrong method on a templated path',
    method: 'PATCH',
    path: '/bookings/bkg_123',
    body: {},
    status: 405,
    headerCheck: (h) => expect((h.get('allow') ?? '').split(/,\s*/).sort()).toEqual(['GET', 'PUT']),
  },
];

describe('bad input is always a problem document (a USP error type, or about:blank for 405), never a 500 (§9.1, §9.4)', () => {
  it.each(BAD_INPUT)('$name -> $status', async (c) => {
    const res = await t.call(c.method, c.path, c.body, { rawBody: c.rawBody, headers: c.headers });
    expectProblem(res, c.status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    if (c.status === 400) expect(res.body.type).toBe(`${ERRORS}invalid-request`);
    if (c.field) {
      const fields = (res.body.errors ?? []).map((e: { field: string }) => e.field);
      expect(
        fields.includes(c.field) || String(res.body.detail).includes(c.field),
        `field ${c.field} in ${JSON.stringify(res.body)}`,
      ).toBe(true);
    }
    c.headerCheck?.(res.headers);
  });

  it('a body over the limit without Content-Length (chunked) is still 413', async () => {
    const chunk = new TextEncoder().encode('{"query":"' + 'z'.repeat(MAX_BODY) + '"}');
    const stream = new ReadableStream({
      start(ctrl) {
        ctrl.enqueue(chunk);
        ctrl.close();
      },
    });
    const r = await fetch(`${t.url}/services/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const body = await r.json();
    expectProblem({ status: r.status, body, headers: r.headers }, 413);
  });
});

describe('identity headers (§8.3, §9.1, D7)', () => {
  it('a USP-Agent header that is not an RFC 8941 dictionary is 400', async () => {
    for (const value of ['profile="unterminated', '@@@ not a dictionary', 'profile=?maybe']) {
      const res = await t.call('POST', '/services/list', {}, { profile: null, headers: { 'USP-Agent': value } });
      expectProblem(res, 400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('a USP-Agent profile that is not a string is 400', async () => {
    const res = await t.call('POST', '/services/list', {}, { profile: null, headers: { 'USP-Agent': 'profile=42' } });
    expectProblem(res, 400);
  });

  it('a non-https profile is 400 invalid_profile_url', async () => {
    const res = await t.call('POST', '/services/list', {}, { profile: 'http://platform.example/profile.json' });
    expectProblem(res, 400);
    expect(res.body.type).toBe(`${ERRORS}invalid-profile-url`);
    expect(res.body.code).toBe('invalid_profile_url');
  });

  it('a public call without USP-Agent is served (D7)', async () => {
    const res = await t.call('POST', '/services/list', {}, { profile: null });
    expect(res.status).toBe(200);
  });

  it('a privileged call without USP-Agent is 400 naming profile', async () => {
    const slot = await firstSlot('svc_haircut');
    const res = await t.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: slot },
      { profile: null },
    );
    expectProblem(res, 400);
    expect(res.body.type).toBe(`${ERRORS}invalid-request`);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('profile');
  });

  it('business-only confirm without the admin key is 401 with WWW-Authenticate; the admin key confirms', async () => {
    const slot = await firstSlot('svc_color_consult', 2);
    const bk = await t.call('POST', '/bookings', { service_id: 'svc_color_consult', slot_id: slot, buyer: BUYER });
    expect(bk.status).toBe(201);
    expect(bk.body.booking.status).toBe('pending');
    const id = bk.body.booking.id;

    const denied = await t.call('POST', `/bookings/${id}/confirm`, {}, { profile: PLATFORM });
    expectProblem(denied, 401);
    expect(denied.body.type).toBe(`${ERRORS}authentication-required`);
    expect(denied.headers.get('www-authenticate')).toBeTruthy();
    const still = await t.call('GET', `/bookings/${id}`, undefined, { profile: PLATFORM });
    expect(still.body.booking.status).toBe('pending');

    const wrongKey = await t.call('POST', `/bookings/${id}/confirm`, {}, { profile: null, apiKey: 'not-the-key' });
    expectProblem(wrongKey, 401);
    expect(wrongKey.headers.get('www-authenticate')).toBeTruthy();

    const ok = await t.call('POST', `/bookings/${id}/confirm`, {}, { profile: null, apiKey: ADMIN_KEY });
    expect(ok.status).toBe(200);
    expect(ok.body.booking.status).toBe('confirmed');
  });
});
