/**
 * OAuth scopes are enforced (spec 10.2.4, RFC 6750 section 3.1): `usp:booking` holds, books,
 * changes and cancels bookings and writes waitlist entries, `usp:history` lists the buyer's
 * bookings. A token without the scope a call needs is refused with insufficient_scope (HTTP 403
 * naming the scope on REST and on the MCP HTTP door, JSON-RPC -32006 naming it in the message),
 * and nothing changes. The consent page lists exactly what allowing it grants.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUYER } from '../support/server.js';
import { connectMcp } from '../mcp/helpers.js';
import { OPERATIONS } from '../../src/operations/index.js';
import {
  Browser,
  actionOf,
  authorizeUrl,
  buyerToken,
  csrfOf,
  firstSlotAt,
  mcpCallAt,
  pkce,
  register,
  startOAuthServer,
  type OAuthTestServer,
} from './support.js';

let t: OAuthTestServer;
let client: { client_id: string };
/** Tokens of one buyer through one client, each with other scopes. */
const tokens: Record<'full' | 'openid' | 'history' | 'booking' | 'rest_openid' | 'rest_booking', string> = {} as never;
let booked: string;

beforeAll(async () => {
  t = await startOAuthServer();
  client = await register(t.url);
  const email = 'scoped@example.com';
  tokens.full = (await buyerToken(t, client, { email })).access_token;
  tokens.openid = (await buyerToken(t, client, { email, scope: 'openid', signUp: false })).access_token;
  tokens.history = (await buyerToken(t, client, { email, scope: 'usp:history', signUp: false })).access_token;
  tokens.booking = (await buyerToken(t, client, { email, scope: 'usp:booking', signUp: false })).access_token;
  tokens.rest_openid = (
    await buyerToken(t, client, { email, scope: 'openid', signUp: false, resource: `${t.url}/` })
  ).access_token;
  tokens.rest_booking = (
    await buyerToken(t, client, { email, scope: 'usp:booking', signUp: false, resource: `${t.url}/` })
  ).access_token;
  const made = await mcpCallAt(
    t.url,
    'usp_bookings_create',
    { service_id: 'svc_haircut', slot_id: await firstSlotAt(t.url, 3), buyer: BUYER },
    bearer(tokens.full),
  );
  booked = made.body.result.structuredContent.booking.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const bookingStatus = async (id: string) => (await t.server.store.read((tx) => tx.bookings.get(id)))?.booking.status;

/** The MCP answer of a refused call: HTTP 403, the Bearer challenge, a JSON-RPC -32006 naming the scope. */
function expectInsufficientScope(r: { status: number; headers: Headers; body: any }, scope: string) {
  expect(r.status).toBe(403);
  expect(r.headers.get('www-authenticate')).toContain('Bearer ');
  expect(r.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  expect(r.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
  expect(r.body.error.code).toBe(-32006);
  expect(r.body.error.message).toContain(scope);
  expect(r.body.error.data).toMatchObject({ code: 'insufficient_scope', scope });
}

describe('a token without usp:booking cannot hold, book, change or cancel (MCP over HTTP: 403 insufficient_scope)', () => {
  test('a token with scope openid only cannot hold, book or cancel, and the booking stays as it was', async () => {
    const slot = await firstSlotAt(t.url, 4);
    expectInsufficientScope(
      await mcpCallAt(
        t.url,
        'usp_availability_hold',
        { service_id: 'svc_haircut', slot_id: slot },
        bearer(tokens.openid),
      ),
      'usp:booking',
    );
    // Neither a hold nor a booking took the slot.
    expectInsufficientScope(
      await mcpCallAt(
        t.url,
        'usp_bookings_create',
        { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER },
        bearer(tokens.openid),
      ),
      'usp:booking',
    );
    expect(await firstSlotAt(t.url, 4)).toBe(slot);
    expectInsufficientScope(
      await mcpCallAt(t.url, 'usp_bookings_cancel', { booking_id: booked }, bearer(tokens.openid)),
      'usp:booking',
    );
    expect(await bookingStatus(booked)).toBe('confirmed');
  });

  test('a token with scope usp:history only cannot hold, book, reschedule, update, cancel or join a waitlist, but lists and reads the buyer’s bookings', async () => {
    const slot = await firstSlotAt(t.url, 5);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['usp_availability_hold', { service_id: 'svc_haircut', slot_id: slot }],
      ['usp_bookings_create', { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER }],
      ['usp_bookings_reschedule', { booking_id: booked, slot_id: slot }],
      ['usp_bookings_update', { booking_id: booked, notes: 'changed' }],
      ['usp_bookings_cancel', { booking_id: booked }],
      ['usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: BUYER }],
    ];
    for (const [tool, args] of calls)
      expectInsufficientScope(await mcpCallAt(t.url, tool, args, bearer(tokens.history)), 'usp:booking');
    const stored = await t.server.store.read((tx) => tx.bookings.get(booked));
    expect(stored?.booking).toMatchObject({ status: 'confirmed' });
    expect(stored?.booking.notes).toBeUndefined();
    const listed = await mcpCallAt(t.url, 'usp_bookings_list', {}, bearer(tokens.history));
    expect(listed.status).toBe(200);
    expect(listed.body.result.structuredContent.bookings.map((b: any) => b.id)).toContain(booked);
    const read = await mcpCallAt(t.url, 'usp_bookings_get', { booking_id: booked }, bearer(tokens.history));
    expect(read.body.result.structuredContent.booking.id).toBe(booked);
  });

  test('a token with scope usp:booking only cannot list the buyer’s bookings (usp:history)', async () => {
    expectInsufficientScope(await mcpCallAt(t.url, 'usp_bookings_list', {}, bearer(tokens.booking)), 'usp:history');
  });

  test('a token with both scopes holds, books and cancels', async () => {
    const slot = await firstSlotAt(t.url, 8);
    const hold = await mcpCallAt(
      t.url,
      'usp_availability_hold',
      { service_id: 'svc_haircut', slot_id: slot },
      bearer(tokens.full),
    );
    expect(hold.status).toBe(200);
    expect(hold.body.result.structuredContent.hold.id).toMatch(/^hld_/);
  });
});

describe('the scope is a fact of the operation’s row', () => {
  test('every privileged operation of the business names the scopes it needs on its row', () => {
    const privileged = OPERATIONS.filter(
      (op) => op.access === 'privileged_platform' || op.access === 'privileged_scoped',
    );
    expect(privileged.length).toBeGreaterThan(15);
    expect(privileged.filter((op) => !op.scopes?.length).map((op) => op.name)).toEqual([]);
    expect(OPERATIONS.filter((op) => op.access === 'public' && op.scopes).map((op) => op.name)).toEqual([]);
  });
});

describe('REST answers 403 with an insufficient_scope challenge naming the scope', () => {
  test('a REST token with scope openid only cannot book: 403, WWW-Authenticate Bearer error="insufficient_scope", scope="usp:booking", and no booking', async () => {
    const slot = await firstSlotAt(t.url, 9);
    const res = await fetch(`${t.url}/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(tokens.rest_openid) },
      body: JSON.stringify({ service_id: 'svc_haircut', slot_id: slot, buyer: BUYER }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('Bearer realm="usp", error="insufficient_scope", scope="usp:booking"');
    expect(challenge).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource"`);
    expect(await res.json()).toMatchObject({ status: 403, code: 'insufficient_scope', scope: 'usp:booking' });
    expect(await firstSlotAt(t.url, 9)).toBe(slot);
  });

  test('a REST token with usp:booking only cannot list bookings (GET /bookings needs usp:history)', async () => {
    const res = await fetch(`${t.url}/bookings`, { headers: bearer(tokens.rest_booking) });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('scope="usp:history"');
  });
});

describe('over stdio (the token in _meta.usp.authorization) the refusal is JSON-RPC -32006 naming the scope', () => {
  test('a token with scope openid only cannot book over an in-process MCP session', async () => {
    const conn = await connectMcp('v2', 'memory', { server: t.server } as never);
    try {
      const slot = await firstSlotAt(t.url, 10);
      const auth = { _meta: { usp: { authorization: { mechanism: 'oauth2_bearer', credential: tokens.openid } } } };
      const err = await conn.callError('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: slot,
        buyer: BUYER,
        ...auth,
      });
      expect(err.code).toBe(-32006);
      expect(err.message).toContain('usp:booking');
      expect(err.data).toMatchObject({ code: 'insufficient_scope', scope: 'usp:booking' });
      // The same channel with a token that has the scope books.
      const ok = await conn.call('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: slot,
        buyer: BUYER,
        _meta: { usp: { authorization: { mechanism: 'oauth2_bearer', credential: tokens.full } } },
      });
      expect(ok.structuredContent.booking.status).toBe('confirmed');
    } finally {
      await conn.client.close();
    }
  });
});

describe('the consent page lists exactly the scopes that allowing it grants', () => {
  /** What the consent page names, for a fresh client asking for `scope` (the buyer signs in first). */
  async function consentItems(scope: string): Promise<string[]> {
    const c = await register(t.url);
    const browser = new Browser(t.url);
    const login = await browser.follow(authorizeUrl(t.url, c.client_id, pkce(), { scope }));
    const consent = await browser.follow(actionOf(login.text), {
      form: { csrf: csrfOf(login.text), email: 'scoped@example.com', password: 'correct horse battery' },
    });
    expect(consent.text).toContain('<h1>Allow');
    return [...consent.text.matchAll(/<li><strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
  }

  test('asking for usp:history only shows that one scope', async () => {
    expect(await consentItems('usp:history')).toEqual(['See your bookings']);
  });

  test('asking for openid and usp:booking lists both, since both are granted', async () => {
    expect(await consentItems('openid usp:booking')).toEqual(['Book for you', 'Know it is you']);
  });
});
