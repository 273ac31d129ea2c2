/**
 * Business-only operations (spec 10.1.6, decision D8): confirming a manual booking and moving a
 * booking through service (start, complete, no-show) belong to the business. No platform may run
 * them on its own bookings, whatever it proves: a pre-registered platform API key, a PoP proof, an
 * RFC 9421 signature, a booking-scoped credential, or (sandbox) a bare profile URI. Checked on the
 * REST door and on MCP over HTTP, with the stored booking left untouched each time; and the
 * handlers themselves refuse a caller that is not the business, whatever let it through.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createPopKey,
  createSigningIdentity,
  dpopHeaders,
  signedHeaders,
  withMcpProof,
  type PopKey,
} from '../../src/client/platform-auth.js';
import { operationByName, silentLogger } from '../../src/operations/index.js';
import { hashApiKey } from '../../src/security/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ADMIN_KEY, BUYER, demoBusiness } from '../support/server.js';

const PLATFORM_KEY = 'platform-key-registered-0123456789';
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const agent = (profile: string) => ({ 'USP-Agent': `profile="${profile}"` });
const day = nyDate(Date.now(), 3);

interface Reply {
  status: number;
  body: any;
}

async function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** How a platform presents itself on REST: headers for one request. */
type RestAuth = (method: string, url: string, headers: Record<string, string>, body?: string) => Record<string, string>;

let profiles: ProfileServer;
let server: UspServer;
let url: string;
let sandbox: UspServer;
let sandboxUrl: string;
let A: string;
let SIGNER: string;
const pop = createPopKey();
const signer = createSigningIdentity('signer-key-1');

beforeAll(async () => {
  profiles = await startProfileServer();
  A = profiles.addProfile('/platform-a.json');
  SIGNER = profiles.addProfile('/signer.json', { keys: [signer.publicJwk] });
  const business = { ...demoBusiness(), platform_api_keys: [{ id: 'plat_a', sha256: hashApiKey(PLATFORM_KEY) }] };
  server = await createUspServer({
    business,
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true },
  });
  url = await server.listen(0, '127.0.0.1');
  sandbox = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
  });
  sandboxUrl = await sandbox.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
  await profiles?.close();
});

const apiKeyAuth =
  (profile: string): RestAuth =>
  (_m, _u, h) => ({ ...h, ...agent(profile), Authorization: `Bearer ${PLATFORM_KEY}` });
const popAuth =
  (key: PopKey, profile: string): RestAuth =>
  (m, u, h) => ({ ...h, ...agent(profile), ...dpopHeaders(key, m, u) });
const sigAuth =
  (profile: string): RestAuth =>
  (m, u, h, body) =>
    signedHeaders(signer, m, u, { ...h, ...agent(profile) }, body);
const profileOnly =
  (profile: string): RestAuth =>
  (_m, _u, h) => ({ ...h, ...agent(profile) });

/** Book `service` on `base` as the platform `auth` describes; returns the booking and its credential. */
async function book(base: string, auth: RestAuth, service: string): Promise<{ id: string; credential?: string }> {
  const q = await send(
    `${base}/availability/query`,
    'POST',
    JSON_HEADERS,
    JSON.stringify({ service_id: service, start_date: day, end_date: day }),
  );
  const slot = q.body.slots[0];
  if (!slot) throw new Error(`no free ${service} slot on ${day}`);
  const body = JSON.stringify({ service_id: service, slot_id: slot.id, buyer: BUYER });
  const r = await send(
    `${base}/bookings`,
    'POST',
    auth('POST', `${base}/bookings`, { ...JSON_HEADERS, 'Idempotency-Key': randomUUID() }, body),
    body,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.booking.id, credential: r.body.booking_scoped_credential?.value };
}

async function storedStatus(base: string, id: string): Promise<string> {
  const r = await send(`${base}/bookings/${id}`, 'GET', { Authorization: `Bearer ${ADMIN_KEY}` });
  expect(r.status).toBe(200);
  return r.body.booking.status;
}

function expectRefused(r: Reply): void {
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body.code).toBe('business_credential_required');
}

const MECHANISMS: Array<{ name: string; auth: () => RestAuth }> = [
  { name: 'a pre-registered platform API key', auth: () => apiKeyAuth(A) },
  { name: 'a platform_key_pop proof (DPoP)', auth: () => popAuth(pop, A) },
  { name: 'an RFC 9421 signature', auth: () => sigAuth(SIGNER) },
];

describe('REST: no platform mechanism runs a business-only operation on its own booking', () => {
  test.each(MECHANISMS)(
    '$name cannot confirm its pending manual booking; the booking stays pending',
    async ({ auth }) => {
      const b = await book(url, auth(), 'svc_color_consult');
      expect(await storedStatus(url, b.id)).toBe('pending');
      const path = `${url}/bookings/${b.id}/confirm`;
      const r = await send(
        path,
        'POST',
        auth()('POST', path, { ...JSON_HEADERS, 'Idempotency-Key': randomUUID() }, '{}'),
        '{}',
      );
      expectRefused(r);
      expect(await storedStatus(url, b.id)).toBe('pending');
    },
  );

  test.each(MECHANISMS)(
    '$name cannot start, complete or no-show its confirmed booking; the booking stays confirmed',
    async ({ auth }) => {
      const b = await book(url, auth(), 'svc_haircut');
      for (const move of ['start', 'complete', 'no-show']) {
        const path = `${url}/admin/bookings/${b.id}/${move}`;
        const r = await send(path, 'POST', auth()('POST', path, { 'Idempotency-Key': randomUUID() }));
        expectRefused(r);
        expect(await storedStatus(url, b.id), move).toBe('confirmed');
      }
    },
  );

  test('the booking-scoped credential issued to the platform cannot confirm, start or complete', async () => {
    const pending = await book(url, apiKeyAuth(A), 'svc_color_consult');
    expect(pending.credential).toMatch(/^bsc_/);
    const headers = { ...agent(A), Authorization: `Bearer ${pending.credential}`, 'Idempotency-Key': randomUUID() };
    expectRefused(await send(`${url}/bookings/${pending.id}/confirm`, 'POST', { ...headers, ...JSON_HEADERS }, '{}'));
    expect(await storedStatus(url, pending.id)).toBe('pending');
    const confirmed = await book(url, apiKeyAuth(A), 'svc_haircut');
    for (const move of ['start', 'complete']) {
      const r = await send(`${url}/admin/bookings/${confirmed.id}/${move}`, 'POST', {
        ...agent(A),
        Authorization: `Bearer ${confirmed.credential}`,
      });
      expectRefused(r);
    }
    expect(await storedStatus(url, confirmed.id)).toBe('confirmed');
  });

  test('sandbox: a bare profile URI cannot confirm or start either', async () => {
    const pending = await book(sandboxUrl, profileOnly(A), 'svc_color_consult');
    expectRefused(
      await send(`${sandboxUrl}/bookings/${pending.id}/confirm`, 'POST', { ...JSON_HEADERS, ...agent(A) }, '{}'),
    );
    expect(await storedStatus(sandboxUrl, pending.id)).toBe('pending');
    const confirmed = await book(sandboxUrl, profileOnly(A), 'svc_haircut');
    expectRefused(await send(`${sandboxUrl}/admin/bookings/${confirmed.id}/start`, 'POST', agent(A)));
    expect(await storedStatus(sandboxUrl, confirmed.id)).toBe('confirmed');
  });

  test('the business admin key still confirms and moves bookings', async () => {
    const pending = await book(url, apiKeyAuth(A), 'svc_color_consult');
    const admin = { Authorization: `Bearer ${ADMIN_KEY}` };
    expect(
      (await send(`${url}/bookings/${pending.id}/confirm`, 'POST', { ...admin, ...JSON_HEADERS }, '{}')).status,
    ).toBe(200);
    expect(await storedStatus(url, pending.id)).toBe('confirmed');
    expect((await send(`${url}/admin/bookings/${pending.id}/start`, 'POST', admin)).status).toBe(200);
    expect(await storedStatus(url, pending.id)).toBe('in_progress');
  });
});

describe('MCP over HTTP: usp_bookings_confirm refuses every platform mechanism', () => {
  type FetchLike = (u: string | URL, init?: RequestInit) => Promise<Response>;
  const signingFetch: FetchLike = async (u, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = typeof init.body === 'string' ? init.body : undefined;
    return fetch(u, {
      ...init,
      headers: signedHeaders(
        signer,
        (init.method ?? 'GET').toUpperCase(),
        String(u),
        { ...headers, 'usp-agent': `profile="${SIGNER}"` },
        body,
      ),
      body,
    });
  };

  async function connect(base: string, fetchImpl?: FetchLike): Promise<Client> {
    const client = new Client({ name: 'business-only', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: fetchImpl as never }));
    return client;
  }

  async function confirmError(client: Client, args: Record<string, unknown>): Promise<{ code: number; data: any }> {
    const e = await client.callTool({ name: 'usp_bookings_confirm', arguments: args }).then(
      (r) => {
        throw new Error(`usp_bookings_confirm was expected to fail but returned ${JSON.stringify(r).slice(0, 400)}`);
      },
      (err) => err,
    );
    return { code: e.code, data: e.data };
  }

  const meta = (profile: string, extra: Record<string, unknown> = {}) => ({
    _meta: { usp: { profile, idempotency_key: randomUUID(), ...extra } },
  });

  test('api_key (platform key), platform_key_pop and booking_scoped_credential in _meta.usp.authorization are refused (-32006)', async () => {
    const client = await connect(url);
    try {
      const b = await book(url, apiKeyAuth(A), 'svc_color_consult');
      const attempts: Array<Record<string, unknown>> = [
        { booking_id: b.id, ...meta(A, { authorization: { mechanism: 'api_key', credential: PLATFORM_KEY } }) },
        withMcpProof(pop, 'usp_bookings_confirm', { booking_id: b.id, ...meta(A) }, `${url}/.well-known/usp`),
        {
          booking_id: b.id,
          ...meta(A, { authorization: { mechanism: 'booking_scoped_credential', credential: b.credential } }),
        },
      ];
      for (const args of attempts) {
        const e = await confirmError(client, args);
        expect(e.code).toBe(-32006);
        expect(e.data.code).toBe('business_credential_required');
        expect(await storedStatus(url, b.id)).toBe('pending');
      }
    } finally {
      await client.close();
    }
  });

  test('a platform API key as Authorization: Bearer on the MCP POST is refused (-32006)', async () => {
    const client = new Client({ name: 'bearer', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${PLATFORM_KEY}` } },
      }),
    );
    try {
      const b = await book(url, apiKeyAuth(A), 'svc_color_consult');
      const e = await confirmError(client, { booking_id: b.id, ...meta(A) });
      expect(e.code).toBe(-32006);
      expect(e.data.code).toBe('business_credential_required');
      expect(await storedStatus(url, b.id)).toBe('pending');
    } finally {
      await client.close();
    }
  });

  test('an RFC 9421-signed MCP request is refused (-32006)', async () => {
    const client = await connect(url, signingFetch);
    try {
      const b = await book(url, sigAuth(SIGNER), 'svc_color_consult');
      const e = await confirmError(client, { booking_id: b.id, ...meta(SIGNER) });
      expect(e.code).toBe(-32006);
      expect(e.data.code).toBe('business_credential_required');
      expect(await storedStatus(url, b.id)).toBe('pending');
    } finally {
      await client.close();
    }
  });

  test('sandbox: a bare profile is refused (-32006)', async () => {
    const client = await connect(sandboxUrl);
    try {
      const b = await book(sandboxUrl, profileOnly(A), 'svc_color_consult');
      const e = await confirmError(client, { booking_id: b.id, ...meta(A) });
      expect(e.code).toBe(-32006);
      expect(await storedStatus(sandboxUrl, b.id)).toBe('pending');
    } finally {
      await client.close();
    }
  });
});

describe('the handlers of business-only operations act only for the business (defence in depth)', () => {
  test.each(['confirm_booking', 'start_booking', 'complete_booking', 'mark_no_show'])(
    '%s with a non-business caller that got past authentication -> authentication_required, nothing stored',
    async (name) => {
      const service = name === 'confirm_booking' ? 'svc_color_consult' : 'svc_haircut';
      const b = await book(url, apiKeyAuth(A), service);
      const before = await storedStatus(url, b.id);
      const res = await server.pipeline.execute(
        operationByName(name),
        {
          input: { booking_id: b.id },
          trustedCaller: { principal: 'key:plat_a', profile: A, business: false, authenticated: true },
        },
        server.scope,
      );
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.error.code).toBe('authentication_required');
        expect(res.error.detailCode).toBe('business_credential_required');
      }
      expect(await storedStatus(url, b.id)).toBe(before);
    },
  );
});
