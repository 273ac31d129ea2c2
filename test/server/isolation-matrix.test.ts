/**
 * The isolation matrix (issue 39 item 5): one row per door and per thing a caller can hold that
 * business A (the demo salon) issued, presented at business B's (Nord Studio's) host through the real
 * door (HTTP, the official MCP SDK client). Each row asserts the refusal, and that nothing changed at
 * either business (their bookings and the salon's feed subscription, read inside each business, past
 * the router). Rows the other hosting tests hold: MCP sessions (both eras), the dashboard's setup
 * link and an idempotency key in hosting.test.ts; an OAuth access token in hosting-oauth.test.ts.
 *
 * Then the matrix is shown to catch a broken check: in hosting mode the business check is the
 * routing (each business has its own store and keys), so the fault is the hosting's test seam
 * `route` sending one door's paths at Nord's host to the salon, Host and all, and every row of that
 * door must fail under it.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createPopKey, withMcpProof, type PopKey } from '../../src/client/platform-auth.js';
import { addBusinessUser } from '../../src/operations/index.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { TEST_NOW } from '../support/time.js';
import { csrfOf, linkedTokens, tokenRequest, type OAuthTestServer } from '../oauth/support.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { KEYS, NORD, SALON, deployTwo, undeploy, type Biz, type Deployment } from '../support/hosting.js';

const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };
const meta = { _meta: { usp: { profile: PLATFORM } } };

/** What the salon issued, each through its own door at its own host. */
interface Issued {
  booking: { id: string; credential: string };
  platformKey: string;
  subscription: string;
  calendarFeed: URL;
  webhookResource: string;
  /** A key the platform proved at the salon (platform_key_pop), and the booking it made there. */
  pop: { key: PopKey; booking: string };
  /** The salon owner's dashboard session, as its Cookie header. */
  dashboardCookie: string;
  /** A buyer's account at the salon (made by linking an assistant): its page's cookie, and the assistant's tokens. */
  account: { email: string; cookie: string; clientId: string; refreshToken: string };
  /** A stateful MCP session of the salon (the 2025-06-18 era) that booked, so may read its webhook resource. */
  session: { id: string; resource: string; close(): Promise<void> };
}

/** Proofs are dated by the businesses' clock (the fixed test instant). */
const IAT = Math.floor(TEST_NOW / 1000);
/** What a platform_key_pop proof is bound to: the business's profile, at its origin. */
const audOf = (d: Deployment, b: Biz) => `${d.url(b)}/.well-known/usp`;

/** A 2026-07-28 MCP client at a business's host, naming the platform on every request. */
async function modernClient(d: Deployment, b: Biz): Promise<Client> {
  const client = new Client(
    { name: 'isolation-matrix', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', d.url(b)), { fetch: hostFetch, requestInit: { headers: AGENT } }),
  );
  return client;
}

async function issueAtSalon(d: Deployment): Promise<Issued> {
  const at = d.url(SALON);
  const admin = { Authorization: `Bearer ${KEYS[SALON.id]}` };
  const q = await hostCall(`${at}/availability/query`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: SALON.service, start_date: day(2), end_date: day(2), limit: 5 },
  });
  const made = await hostCall(`${at}/bookings`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: SALON.service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(made.status, made.text).toBe(201);
  const key = await hostCall(`${at}/admin/api-keys`, { method: 'POST', headers: admin, body: { label: 'Salon app' } });
  expect(key.status, key.text).toBe(201);
  const sub = await hostCall(`${at}/services/feed/subscriptions`, {
    method: 'POST',
    headers: AGENT,
    body: { callback_url: 'http://127.0.0.1:9/catalog' },
  });
  expect(sub.status, sub.text).toBe(201);
  const feed = await hostCall(`${at}/admin/resources/_business/calendar-feed`, { headers: admin });
  expect(feed.status, feed.text).toBe(200);
  const client = await modernClient(d, SALON);
  try {
    const slots: any = await client.callTool({
      name: 'usp_availability_query',
      arguments: { service_id: SALON.service, start_date: day(3), end_date: day(3), ...meta },
    });
    const booked: any = await client.callTool({
      name: 'usp_bookings_create',
      arguments: { service_id: SALON.service, slot_id: slots.structuredContent.slots[0].id, buyer: BUYER, ...meta },
    });
    expect(booked.isError ?? false, JSON.stringify(booked)).toBe(false);
    const session = await sessionThatBooked(d);
    const account = await accountAtSalon(d);
    const owner = { email: 'owner@maple-pine.example', password: 'a long enough password' };
    await d.hosting.pool.use(SALON.id, (server) =>
      addBusinessUser(server.store, owner.email, owner.password, TEST_NOW),
    );
    const dash = await signInDashboard(d.url(SALON), owner.email, owner.password, hostFetch);
    const home = await dash.get('/admin');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Maple');
    const pop = createPopKey();
    const popArgs = { service_id: SALON.service, slot_id: slots.structuredContent.slots[1].id, buyer: BUYER, ...meta };
    const popBooked: any = await client.callTool({
      name: 'usp_bookings_create',
      arguments: withMcpProof(pop, 'usp_bookings_create', popArgs, audOf(d, SALON), { iat: IAT }),
    });
    expect(popBooked.isError ?? false, JSON.stringify(popBooked)).toBe(false);
    return {
      dashboardCookie: dash.cookies(),
      account,
      pop: { key: pop, booking: popBooked.structuredContent.booking.id },
      session,
      booking: { id: made.body.booking.id, credential: made.body.booking_scoped_credential.value },
      platformKey: key.body.secret,
      subscription: sub.body.subscription.id,
      calendarFeed: new URL(feed.body.url),
      webhookResource: booked._meta['dev.usp-server/webhook_resource'],
    };
  } finally {
    await client.close();
  }
}

const ACCOUNT = { email: 'grace@example.com', password: 'correct horse battery' };

/** A buyer links an assistant at the salon (signing up), then signs in to the salon's account page: its cookie, the assistant's refresh token. */
async function accountAtSalon(d: Deployment): Promise<Issued['account']> {
  // The OAuth helpers call the global fetch: theirs reaches `*.localhost` here.
  const { client, tokens } = await linkedTokens(
    { url: d.url(SALON), codes: d.codes } as unknown as OAuthTestServer,
    ACCOUNT.email,
    { password: ACCOUNT.password },
  );
  const login = await hostFetch(`${d.url(SALON)}/account`);
  const csrfCookie = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const form = new URLSearchParams({
    csrf: csrfOf(await login.text()),
    email: ACCOUNT.email,
    password: ACCOUNT.password,
  });
  const signedIn = await hostFetch(`${d.url(SALON)}/account/login`, {
    method: 'POST',
    headers: { cookie: csrfCookie.join('; '), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  expect(signedIn.status).toBe(303);
  const cookie = [...csrfCookie, ...signedIn.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
  // Good at the salon: the account page shows the buyer.
  expect(await (await hostFetch(`${d.url(SALON)}/account`, { headers: { cookie } })).text()).toContain(ACCOUNT.email);
  return { email: ACCOUNT.email, cookie, clientId: client.client_id, refreshToken: tokens.refresh_token };
}

/** A salon MCP session (stateful era) that booked: it may read its webhook resource and the MCP Apps views. */
async function sessionThatBooked(d: Deployment): Promise<Issued['session']> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', d.url(SALON)), { fetch: hostFetch });
  const client = new Client({ name: 'isolation-matrix', version: '1' });
  await client.connect(transport);
  const slots: any = await client.callTool({
    name: 'usp_availability_query',
    arguments: { service_id: SALON.service, start_date: day(4), end_date: day(4), ...meta },
  });
  const booked: any = await client.callTool({
    name: 'usp_bookings_create',
    arguments: { service_id: SALON.service, slot_id: slots.structuredContent.slots[0].id, buyer: BUYER, ...meta },
  });
  expect(booked.isError ?? false, JSON.stringify(booked)).toBe(false);
  const resource = booked._meta['dev.usp-server/webhook_resource'];
  // Good at the salon, in that session.
  expect(JSON.stringify(await client.readResource({ uri: resource }))).toContain('events');
  return { id: transport.sessionId!, resource, close: () => client.close() };
}

/** A raw JSON-RPC request in a session, at a business's MCP endpoint. */
const inSession = (d: Deployment, b: Biz, sessionId: string, method: string, params: unknown) =>
  hostFetch(`${d.url(b)}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'Mcp-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

/** Read inside a business, past the router (so a broken route cannot hide a change). */
async function inside(d: Deployment, b: Biz, path: string, headers: Record<string, string>): Promise<any> {
  const res = await d.hosting.pool.use(
    b.id,
    async (server): Promise<Response> => server.app.fetch(new Request(`${d.url(b)}${path}`, { headers }), {}),
  );
  return { status: res.status, body: await res.json() };
}

/** Both businesses' bookings (id and status, days 2 to 4) and the salon's feed subscription. */
async function state(d: Deployment, issued: Issued): Promise<unknown> {
  const bookings = async (b: Biz) => {
    const days = await Promise.all(
      [2, 3, 4].map((n) => inside(d, b, `/admin/bookings?date=${day(n)}`, { Authorization: `Bearer ${KEYS[b.id]}` })),
    );
    return days.flatMap((r) => r.body.bookings.map((x: any) => `${x.booking.id}:${x.booking.status}`));
  };
  const sub = await inside(d, SALON, `/services/feed/subscriptions/${issued.subscription}`, AGENT);
  return {
    salon: await bookings(SALON),
    nord: await bookings(NORD),
    subscription: [sub.status, sub.body.subscription?.status],
  };
}

const refusedCall = (p: Promise<unknown>) =>
  p.then(
    (ok) => ({ refused: false, ok }) as any,
    (err: any) => ({ refused: true, code: err.code, data: err.data, message: String(err.message) }),
  );

interface Row {
  door: string;
  holds: string;
  /** Presents the salon's thing at Nord's host; throws unless refused there and nothing of the salon leaks. */
  run(d: Deployment, issued: Issued): Promise<void>;
}

const ROWS: Row[] = [
  {
    door: 'admin API',
    holds: 'an admin key',
    run: async (d) => {
      const r = await hostCall(`${d.url(NORD)}/admin/bookings?date=${day(2)}`, {
        headers: { Authorization: `Bearer ${KEYS[SALON.id]}` },
      });
      expect(r.status).toBe(401);
    },
  },
  {
    door: 'admin API',
    holds: "a calendar feed's address (the admin API gives it)",
    run: async (d, issued) => {
      const r = await hostCall(`${d.url(NORD)}/admin/resources/_business/calendar-feed`, {
        headers: { Authorization: `Bearer ${KEYS[SALON.id]}` },
      });
      expect(r.status).toBe(401);
      expect(r.text).not.toContain(issued.calendarFeed.searchParams.get('token'));
    },
  },
  {
    door: 'REST',
    holds: 'a platform key',
    run: async (d, issued) => {
      const r = await hostCall(`${d.url(NORD)}/availability/query`, {
        method: 'POST',
        headers: { ...AGENT, Authorization: `Bearer ${issued.platformKey}` },
        body: { service_id: NORD.service, start_date: day(4), end_date: day(4) },
      });
      expect([r.status, r.body.code]).toEqual([401, 'invalid_token']);
    },
  },
  {
    door: 'REST',
    holds: 'a booking-scoped credential',
    run: async (d, issued) => {
      const r = await hostCall(`${d.url(NORD)}/bookings/${issued.booking.id}/cancel`, {
        method: 'POST',
        headers: { ...AGENT, Authorization: `Bearer ${issued.booking.credential}` },
        body: { reason: 'crossed' },
      });
      expect([401, 403, 404]).toContain(r.status);
      expect(r.text).not.toContain(SALON.name);
    },
  },
  {
    door: 'REST',
    holds: 'a feed subscription id',
    run: async (d, issued) => {
      const path = `${d.url(NORD)}/services/feed/subscriptions/${issued.subscription}`;
      const got = await hostCall(path, { headers: AGENT });
      expect([got.status, got.body.subscription]).toEqual([404, undefined]);
      const paused = await hostCall(`${path}/pause`, { method: 'POST', headers: AGENT });
      expect(paused.status).toBe(404);
      const canceled = await hostCall(path, { method: 'DELETE', headers: AGENT });
      expect(canceled.status).toBe(404);
    },
  },
  {
    door: 'buyer pages',
    holds: "a booking page's link",
    run: async (d, issued) => {
      const r = await hostCall(`${d.url(NORD)}/booking/${issued.booking.id}?token=${issued.booking.credential}`, {
        headers: { Accept: 'text/html' },
      });
      expect(r.status).toBe(404);
      expect(r.text).not.toContain('214 Hudson Street');
      expect(r.text).not.toContain(SALON.name);
    },
  },
  {
    door: 'calendar feeds',
    holds: "a calendar feed's token",
    run: async (d, issued) => {
      const r = await hostCall(`${d.url(NORD)}${issued.calendarFeed.pathname}${issued.calendarFeed.search}`);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type') ?? '').not.toMatch(/text\/calendar/);
      expect(r.text).not.toContain('BEGIN:VCALENDAR');
    },
  },
  {
    door: 'MCP',
    holds: 'a booking id (tools/call)',
    run: async (d, issued) => {
      const client = await modernClient(d, NORD);
      try {
        const got = await refusedCall(
          client.callTool({ name: 'usp_bookings_get', arguments: { booking_id: issued.booking.id, ...meta } }),
        );
        expect([got.refused, got.code, got.data?.code]).toEqual([true, -32602, 'booking_not_found']);
      } finally {
        await client.close();
      }
    },
  },
  {
    door: 'MCP',
    holds: 'a session that may read its webhook resource and the MCP Apps views (resources/read)',
    run: async (d, issued) => {
      for (const uri of [issued.session.resource, 'ui://usp/booking']) {
        const r = await inSession(d, NORD, issued.session.id, 'resources/read', { uri });
        expect(r.status, uri).toBe(404);
        const text = await r.text();
        expect(text).not.toContain(BUYER.email);
        expect(text).not.toContain(SALON.name);
      }
    },
  },
  {
    door: 'MCP',
    holds: "a signed call (platform_key_pop proof bound to the salon's origin)",
    run: async (d, issued) => {
      const client = await modernClient(d, NORD);
      try {
        const args = { booking_id: issued.pop.booking, ...meta };
        const got = await refusedCall(
          client.callTool({
            name: 'usp_bookings_get',
            arguments: withMcpProof(issued.pop.key, 'usp_bookings_get', args, audOf(d, SALON), { iat: IAT }),
          }),
        );
        expect([got.refused, got.data?.code], JSON.stringify(got)).toEqual([true, 'pop_proof_invalid']);
        expect(JSON.stringify(got)).not.toContain(BUYER.email);
      } finally {
        await client.close();
      }
    },
  },
  {
    door: 'MCP',
    holds: 'a webhook resource (subscriptions/listen)',
    run: async (d, issued) => {
      const client = await modernClient(d, NORD);
      try {
        const got = await refusedCall(
          client
            .listen({ resourceSubscriptions: [issued.webhookResource] })
            .then(async (sub) => void (await sub.close())),
        );
        expect(got.refused, JSON.stringify(got)).toBe(true);
        expect(got.data?.code ?? got.message).toMatch(/resource_not_found|No resource/);
      } finally {
        await client.close();
      }
    },
  },
];

const SIGNED_IN_ROWS: Row[] = [
  {
    door: 'dashboard',
    holds: "the owner's dashboard cookie",
    run: async (d, issued) => {
      const r = await hostFetch(`${d.url(NORD)}/admin`, {
        headers: { cookie: issued.dashboardCookie, Accept: 'text/html' },
        redirect: 'manual',
      });
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toMatch(/\/admin\/login/);
      expect(await r.text()).not.toContain('Maple');
    },
  },
  {
    door: 'OAuth and account pages',
    holds: "a buyer's account cookie",
    run: async (d, issued) => {
      const r = await hostFetch(`${d.url(NORD)}/account`, { headers: { cookie: issued.account.cookie } });
      const text = await r.text();
      expect(r.status).toBe(200);
      expect(text).toContain('<h1>Sign in</h1>');
      expect(text).not.toContain(issued.account.email);
    },
  },
  {
    door: 'OAuth and account pages',
    holds: "an assistant's refresh token and client",
    run: async (d, issued) => {
      const r = await tokenRequest(d.url(NORD), {
        grant_type: 'refresh_token',
        refresh_token: issued.account.refreshToken,
        client_id: issued.account.clientId,
      });
      expect([400, 401]).toContain(r.status);
      expect(r.body.error).toMatch(/invalid_(grant|client)/);
    },
  },
];
ROWS.push(...SIGNED_IN_ROWS);

/** Each door's paths (at Nord's host, what its break sends to the salon). */
const under =
  (...prefixes: string[]) =>
  (path: string) =>
    prefixes.some((p) => path.startsWith(p));
const DOORS: Record<string, (path: string) => boolean> = {
  'OAuth and account pages': under('/account', '/oauth/'),
  // The dashboard's home; its other pages share /admin/ with the admin API, whose break covers them.
  dashboard: (path) => path === '/admin',
  'admin API': under('/admin/'),
  REST: under('/availability/', '/bookings', '/services/'),
  'buyer pages': under('/booking/'),
  'calendar feeds': under('/calendars/'),
  MCP: under('/mcp'),
};

/** Runs a row at a deployment, with the state of both businesses compared before and after: the row's failure, or undefined. */
async function outcome(d: Deployment, issued: Issued, row: Row): Promise<string | undefined> {
  try {
    const before = await state(d, issued);
    await row.run(d, issued);
    expect(await state(d, issued), 'nothing changed at either business').toEqual(before);
    return undefined;
  } catch (err) {
    return String((err as Error).message).split('\n')[0];
  }
}

beforeAll(() => {
  vi.stubGlobal('fetch', hostFetch);
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe("the isolation matrix: what the salon issued, at Nord's host", () => {
  let d: Deployment;
  let issued: Issued;
  beforeAll(async () => {
    d = await deployTwo();
    issued = await issueAtSalon(d);
  }, 60_000);
  afterAll(async () => {
    await issued?.session.close();
    await undeploy(d);
  });

  test.each(ROWS.map((r) => [r.door, r.holds, r] as const))(
    '%s x %s: refused, nothing changed',
    async (_door, _holds, row) => {
      expect(await outcome(d, issued, row)).toBeUndefined();
    },
  );

  test("after the matrix, no log line of Nord's carries what the salon issued; each business's server logs under its own id", () => {
    const secrets = [
      issued.booking.id,
      issued.booking.credential,
      issued.platformKey,
      issued.subscription,
      issued.account.email,
      issued.account.refreshToken,
      issued.session.id,
    ];
    const nordLines = d.log.lines.filter((l) => l.fields?.business === NORD.id);
    expect(nordLines.length).toBeGreaterThan(0);
    for (const line of nordLines)
      for (const secret of secrets) expect(JSON.stringify(line), line.msg).not.toContain(secret);
    // Every line of a business's server names it.
    const opened = d.log.lines.filter((l) => l.msg === 'business opened').map((l) => l.fields?.business);
    expect(opened.sort()).toEqual([SALON.id, NORD.id].sort());
  });

  test('every door of the matrix has a row', () => {
    expect([...new Set(ROWS.map((r) => r.door))].sort()).toEqual(Object.keys(DOORS).sort());
  });
});

describe("the matrix catches a broken check: one door's paths at Nord's host routed to the salon", () => {
  test.each(Object.entries(DOORS))(
    '%s misrouted: every row of that door fails',
    async (door, isDoors) => {
      const d = await deployTwo({ route: (name, path) => (name === NORD.host && isDoors(path) ? SALON.host : name) });
      try {
        const issued = await issueAtSalon(d);
        const failing: string[] = [];
        for (const row of ROWS)
          if ((await outcome(d, issued, row)) !== undefined) failing.push(`${row.door} x ${row.holds}`);
        const own = ROWS.filter((r) => r.door === door).map((r) => `${r.door} x ${r.holds}`);
        expect(failing).toEqual(expect.arrayContaining(own));
        // The other doors' rows still hold: the break is the door's alone.
        expect(failing.filter((f) => !own.includes(f))).toEqual([]);
        await issued.session.close();
      } finally {
        await undeploy(d);
      }
    },
    60_000,
  );
});
