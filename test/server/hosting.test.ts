/**
 * Many businesses in one process, routed by Host (issue 39): the demo salon and Nord Studio
 * (test/fixtures/hosting) hosted by one listener on their own `*.localhost` names, over real HTTP.
 * Each publishes its own origin, books over REST and over MCP (the official SDK client), and refuses
 * what the other business issued (admin key, booking id, booking credential) without changing
 * anything; an unknown host learns nothing; suspension refuses, resumption serves; a business closed
 * by the bounded pool opens again with its data. On SQLite, and on PostgreSQL (a schema per business)
 * when USP_TEST_PG_URL is set.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { addBusinessUser } from '../../src/operations/index.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { signInDashboard } from '../support/dashboard-session.js';
import {
  KEYS,
  NORD,
  SALON,
  deployTwo,
  nordEntry,
  salonEntry,
  undeploy,
  type Biz,
  type Deployment,
} from '../support/hosting.js';
import { PG_URL, plainRoleUrl } from '../pg/helpers.js';

const CUSTOM = 'Book.Maple-Pine.localhost';

const deploy = (db: string | undefined, o: { maxLoaded?: number; keyed?: boolean } = {}) =>
  deployTwo({
    db,
    keyed: o.keyed,
    maxLoaded: o.maxLoaded,
    businesses: [salonEntry({ hosts: [SALON.host, CUSTOM] }), nordEntry()],
  });

const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };

async function bookOverRest(d: Deployment, b: Biz, n = 2): Promise<{ id: string; credential: string }> {
  const q = await hostCall(`${d.url(b)}/availability/query`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.service, start_date: day(n), end_date: day(n), limit: 5 },
  });
  expect(q.status, q.text).toBe(200);
  const r = await hostCall(`${d.url(b)}/bookings`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.booking.id, credential: r.body.booking_scoped_credential.value };
}

const adminGet = (d: Deployment, b: Biz, path: string, key: string) =>
  hostCall(`${d.url(b)}${path}`, { headers: { Authorization: `Bearer ${key}` } });

/** The services of the business's bookings on days 2 to 4 (or those given), as its admin API lists them. */
async function listed(d: Deployment, b: Biz, on = [2, 3, 4]): Promise<string[]> {
  const days = await Promise.all(on.map((n) => adminGet(d, b, `/admin/bookings?date=${day(n)}`, KEYS[b.id]!)));
  return days.flatMap((r) => r.body.bookings.map((x: any) => x.booking.service_id));
}

/** The owner's first account through a business's setup page (its form and CSRF cookie), as the status of the form's answer. */
async function setUpOwner(d: Deployment, b: Biz, token: string): Promise<number> {
  const page = await hostFetch(`${d.url(b)}/admin/setup?token=${token}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  const form = new URLSearchParams({
    _csrf: csrf,
    token,
    email: 'owner@nord-studio.example',
    password: 'a long enough password',
    password_again: 'a long enough password',
  });
  const res = await hostFetch(`${d.url(b)}/admin/setup`, {
    method: 'POST',
    headers: { cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return res.status;
}

async function mcpClient(d: Deployment, b: Biz): Promise<Client> {
  const client = new Client({ name: 'usp-hosting-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', d.url(b)), { fetch: hostFetch }));
  return client;
}

const meta = { _meta: { usp: { profile: PLATFORM } } };

function suite(engine: string, db: () => string | undefined, keyed = false) {
  describe(`businesses hosted by Host on one listener (${engine})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(db(), { keyed });
    }, 60_000);
    afterAll(() => undeploy(d));

    test("each business's profile names its own origin, from configuration", async () => {
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const p = await hostCall(`${d.url(b)}/.well-known/usp`);
        expect(p.status).toBe(200);
        expect(p.body.usp.business.name).toContain(b.name);
        expect(p.text).toContain(`${d.url(b)}/mcp`);
        expect(p.text).not.toContain(other.host);
        expect(p.text).not.toContain(other.id);
      }
      // A second name (a custom domain) reaches the same business; its origin stays its own first name.
      const custom = await hostCall(`${d.url(CUSTOM)}/.well-known/usp`);
      expect(custom.body.usp.business.name).toContain(SALON.name);
      expect(custom.text).toContain(`${d.url(SALON)}/mcp`);
      // The listener's own address is no business's name.
      expect((await hostCall(`http://127.0.0.1:${d.port}/.well-known/usp`)).status).toBe(404);
    });

    test('an unknown host gets a plain 404 that names no business', async () => {
      const r = await hostCall(`${d.url('nobody.localhost')}/.well-known/usp`);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      for (const word of [SALON.id, NORD.id, SALON.name, NORD.name, SALON.host, NORD.host])
        expect(r.text).not.toContain(word);
    });

    test('a booking on each over REST and over MCP lands in its own store only', async () => {
      const salon = await bookOverRest(d, SALON);
      const nord = await bookOverRest(d, NORD);
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const client = await mcpClient(d, b);
        try {
          const q: any = await client.callTool({
            name: 'usp_availability_query',
            arguments: { service_id: b.service, start_date: day(3), end_date: day(3), ...meta },
          });
          expect(q.isError ?? false).toBe(false);
          const made: any = await client.callTool({
            name: 'usp_bookings_create',
            arguments: { service_id: b.service, slot_id: q.structuredContent.slots[0].id, buyer: BUYER, ...meta },
          });
          expect(made.isError ?? false, JSON.stringify(made)).toBe(false);
          // The other business's service is not offered here.
          const crossed: any = await client.callTool({
            name: 'usp_availability_query',
            arguments: { service_id: other.service, start_date: day(3), end_date: day(3), ...meta },
          });
          expect(crossed.structuredContent?.slots ?? []).toEqual([]);
        } finally {
          await client.close();
        }
      }
      expect(await listed(d, SALON)).toEqual([SALON.service, SALON.service]);
      expect(await listed(d, NORD)).toEqual([NORD.service, NORD.service]);
      expect(salon.id).not.toBe(nord.id);
    });

    test("each business's mail goes out in its own name, from its own origin, into its own folder", async () => {
      await bookOverRest(d, SALON, 6);
      await bookOverRest(d, NORD, 6);
      const mailOf = (b: Biz) => {
        const folder = join(d.dir, 'mail', b.id);
        return existsSync(folder) ? readdirSync(folder).map((f) => readFileSync(join(folder, f), 'utf8')) : [];
      };
      await waitFor(
        () => mailOf(SALON).length > 0 && mailOf(NORD).length > 0,
        10_000,
        'mail written for both businesses',
      );
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const all = mailOf(b).join('\n');
        expect(all).toContain(`no-reply@${b.host}`);
        expect(all).toContain(d.url(b));
        expect(all).not.toContain(other.host);
        expect(all).not.toContain(other.name);
      }
    });

    test("MCP's SSE era: each business books over its own stream; a stream's session is none at the other host", async () => {
      const client = new Client({ name: 'usp-hosting-test', version: '1.0.0' });
      await client.connect(new SSEClientTransport(new URL('/sse', d.url(NORD)), { fetch: hostFetch }));
      try {
        const q: any = await client.callTool({
          name: 'usp_availability_query',
          arguments: { service_id: NORD.service, start_date: day(7), end_date: day(7), ...meta },
        });
        const made: any = await client.callTool({
          name: 'usp_bookings_create',
          arguments: { service_id: NORD.service, slot_id: q.structuredContent.slots[0].id, buyer: BUYER, ...meta },
        });
        expect(made.isError ?? false, JSON.stringify(made)).toBe(false);
      } finally {
        await client.close();
      }
      expect(await listed(d, NORD, [7])).toEqual([NORD.service]);
      // The salon's stream announces where to post its messages; that endpoint at Nord's host is no session.
      const stream = await hostFetch(`${d.url(SALON)}/sse`, { headers: { Accept: 'text/event-stream' } });
      const reader = stream.body!.getReader();
      let text = '';
      while (!/^data: (\S+)$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      const endpoint = new URL(/^data: (\S+)$/m.exec(text)![1]!, d.url(SALON));
      const post = (b: Biz) =>
        hostFetch(`${d.url(b)}${endpoint.pathname}${endpoint.search}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      try {
        expect((await post(NORD)).status).toBe(404);
        expect((await post(SALON)).status).toBe(202);
      } finally {
        await reader.cancel();
      }
    });

    test("what one business issued is refused at the other's host and changes nothing", async () => {
      const salon = await bookOverRest(d, SALON, 4);
      const nordBefore = await listed(d, NORD);
      // Admin API: the salon's admin key at Nord's host.
      expect((await adminGet(d, NORD, '/admin/bookings', KEYS[SALON.id]!)).status).toBe(401);
      // A platform key the salon issued: good at the salon, no key at Nord.
      const issued = await hostCall(`${d.url(SALON)}/admin/api-keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEYS[SALON.id]}` },
        body: { label: 'Salon app' },
      });
      expect(issued.status).toBe(201);
      const asPlatform = (b: Biz) =>
        hostCall(`${d.url(b)}/availability/query`, {
          method: 'POST',
          headers: { ...AGENT, Authorization: `Bearer ${issued.body.secret}` },
          body: { service_id: b.service, start_date: day(4), end_date: day(4) },
        });
      expect((await asPlatform(SALON)).status).toBe(200);
      const platformCrossed = await asPlatform(NORD);
      expect(platformCrossed.status).toBe(401);
      expect(platformCrossed.body.code).toBe('invalid_token');
      // REST: the salon's booking id, with and without its booking-scoped credential.
      const byId = await hostCall(`${d.url(NORD)}/bookings/${salon.id}`, { headers: AGENT });
      expect([byId.status, byId.body.code, byId.body.booking]).toEqual([404, 'booking_not_found', undefined]);
      expect(byId.text).not.toContain(SALON.name);
      const withCredential = await hostCall(`${d.url(NORD)}/bookings/${salon.id}/cancel`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${salon.credential}` },
        body: { reason: 'crossed' },
      });
      expect([401, 403, 404]).toContain(withCredential.status);
      // Buyer pages: the salon's booking page with its own credential, at the salon and at Nord.
      const page = (b: Biz) =>
        hostCall(`${d.url(b)}/booking/${salon.id}?token=${salon.credential}`, { headers: { Accept: 'text/html' } });
      const own = await page(SALON);
      expect(own.status).toBe(200);
      expect(own.text).toContain('214 Hudson Street');
      const foreign = await page(NORD);
      expect(foreign.status).toBe(404);
      expect(foreign.text).not.toContain('214 Hudson Street');
      expect(foreign.text).not.toContain(SALON.name);
      // MCP: the salon's booking id at Nord's MCP endpoint.
      const client = await mcpClient(d, NORD);
      try {
        const got: any = await client
          .callTool({ name: 'usp_bookings_get', arguments: { booking_id: salon.id, ...meta } })
          .catch((err) => err);
        expect([got.code, got.data?.code]).toEqual([-32602, 'booking_not_found']);
        expect(`${got.message} ${JSON.stringify(got.data)}`).not.toContain(SALON.name);
      } finally {
        await client.close();
      }
      // MCP: a session the salon opened, presented at Nord's endpoint, is no session there.
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', d.url(SALON)), { fetch: hostFetch });
      const salonClient = new Client({ name: 'usp-hosting-test', version: '1.0.0' });
      await salonClient.connect(transport);
      try {
        const sessionId = transport.sessionId!;
        expect(sessionId).toBeTruthy();
        const crossed = await hostFetch(`${d.url(NORD)}/mcp`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Mcp-Session-Id': sessionId,
            'Mcp-Protocol-Version': '2025-06-18',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'usp_bookings_get', arguments: { booking_id: salon.id, ...meta } },
          }),
        });
        expect(crossed.status).toBe(404);
        expect(await crossed.text()).not.toContain(SALON.name);
      } finally {
        await salonClient.close();
      }
      // Nothing changed: Nord has the bookings it had, the salon's booking is still confirmed.
      expect(await listed(d, NORD)).toEqual(nordBefore);
      const still = await hostCall(`${d.url(SALON)}/bookings/${salon.id}`, {
        headers: { ...AGENT, Authorization: `Bearer ${salon.credential}` },
      });
      expect(still.body.booking.status).toBe('confirmed');
    });

    test("a dashboard cookie, a setup link and an idempotency key of one business mean nothing at the other's host", async () => {
      await d.hosting.pool.use(SALON.id, (server) =>
        addBusinessUser(server.store, 'owner@maple-pine.example', 'a long enough password', TEST_NOW),
      );
      const dash = await signInDashboard(d.url(SALON), 'owner@maple-pine.example', 'a long enough password', hostFetch);
      expect((await dash.get('/admin')).status).toBe(200);
      // The salon's cookie at Nord's dashboard: sent to sign in, nothing shown.
      const crossed = await hostFetch(`${d.url(NORD)}/admin`, { headers: { cookie: dash.cookies() } });
      expect(crossed.status).toBe(303);
      expect(crossed.headers.get('location')).toMatch(/\/admin\/login/);
      // Nord's one-time setup link (logged when it was opened, naming its own origin) opens at Nord only.
      const offer = d.log.lines.find(
        (l) => l.fields?.business === NORD.id && l.msg.startsWith('dashboard: no account yet'),
      );
      const link = /(http:\S+\/admin\/setup\?token=\S+)/.exec(offer?.msg ?? '')?.[1];
      expect(link?.startsWith(`${d.url(NORD)}/admin/setup?token=`)).toBe(true);
      const token = new URL(link!).searchParams.get('token')!;
      expect(await setUpOwner(d, SALON, token)).toBe(401);
      expect(await setUpOwner(d, NORD, token)).toBe(303);
      // One idempotency key on both hosts: two bookings, each its business's, no replay of the other's.
      const key = 'idem-hosting-0001';
      const made = async (b: Biz) => {
        const q = await hostCall(`${d.url(b)}/availability/query`, {
          method: 'POST',
          headers: AGENT,
          body: { service_id: b.service, start_date: day(5), end_date: day(5), limit: 1 },
        });
        return hostCall(`${d.url(b)}/bookings`, {
          method: 'POST',
          headers: { ...AGENT, 'Idempotency-Key': key },
          body: { service_id: b.service, slot_id: q.body.slots[0].id, buyer: BUYER },
        });
      };
      const [a, b] = [await made(SALON), await made(NORD)];
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body.booking.id).not.toBe(a.body.booking.id);
      expect(b.body.booking.service_id).toBe(NORD.service);
      expect(b.headers.get('idempotent-replayed') ?? 'false').not.toBe('true');
    });

    test('a suspended business says so and why and takes no booking; resumed, it books again', async () => {
      await hostCall(`${d.url(NORD)}/.well-known/usp`);
      expect(d.hosting.loaded).toContain(NORD.id);
      await d.directory.setStatus(NORD.id, 'suspended', 'Closed for renovation until March');
      const profile = await hostCall(`${d.url(NORD)}/.well-known/usp`);
      expect(profile.status).toBe(200);
      expect(JSON.stringify(profile.body)).toContain('Closed for renovation until March');
      const service = await hostCall(`${d.url(NORD)}/services/${NORD.service}`, { headers: AGENT });
      expect(service.body.service.status).toBe('suspended');
      const q = await hostCall(`${d.url(NORD)}/availability/query`, {
        method: 'POST',
        headers: AGENT,
        body: { service_id: NORD.service, start_date: day(3), end_date: day(3), limit: 5 },
      });
      expect(q.body.slots ?? []).toEqual([]);
      expect(JSON.stringify(q.body)).toContain('Closed for renovation until March');
      // The other business is not touched.
      expect(JSON.stringify((await hostCall(`${d.url(SALON)}/.well-known/usp`)).body)).not.toContain('renovation');
      await d.directory.setStatus(NORD.id, 'active');
      expect(JSON.stringify((await hostCall(`${d.url(NORD)}/.well-known/usp`)).body)).not.toContain('renovation');
      expect((await bookOverRest(d, NORD, 3)).id).toMatch(/./);
    });

    test('names changed by another process: the loaded business answers at its new name, its origin the new one', async () => {
      await hostCall(`${d.url(NORD)}/.well-known/usp`);
      const other = await d.another();
      await other.setHosts(NORD.id, ['nord-new.localhost', NORD.host]);
      await other.close();
      await waitFor(() => d.directory.byHost('nord-new.localhost') !== undefined, 5000, 'the new name in the copy');
      const p = await hostCall(`${d.url('nord-new.localhost')}/.well-known/usp`);
      expect(p.status).toBe(200);
      expect(p.text).toContain(`${d.url('nord-new.localhost')}/mcp`);
      await d.directory.setHosts(NORD.id, [NORD.host]);
      expect((await hostCall(`${d.url(NORD)}/.well-known/usp`)).text).toContain(`${d.url(NORD)}/mcp`);
    });
  });

  describe(`a bounded pool of loaded businesses (${engine})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(db(), { maxLoaded: 1, keyed });
    }, 60_000);
    afterAll(() => undeploy(d));

    test('concurrent first requests compose a business once', async () => {
      const answers = await Promise.all(Array.from({ length: 5 }, () => hostCall(`${d.url(NORD)}/.well-known/usp`)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(d.log.lines.filter((l) => l.msg === 'business opened' && l.fields?.business === NORD.id)).toHaveLength(1);
    });

    test('the least recently used business is closed, and its next request opens it with its data', async () => {
      const nord = await bookOverRest(d, NORD);
      expect(d.hosting.loaded).toEqual([NORD.id]);
      await bookOverRest(d, SALON);
      expect(d.hosting.loaded).toEqual([SALON.id]);
      expect(
        d.log.lines.some((l) => l.msg === 'business closed, least recently used' && l.fields?.business === NORD.id),
      ).toBe(true);
      const again = await hostCall(`${d.url(NORD)}/bookings/${nord.id}`, {
        headers: { ...AGENT, Authorization: `Bearer ${nord.credential}` },
      });
      expect(again.status, again.text).toBe(200);
      expect(again.body.booking.status).toBe('confirmed');
      expect(d.hosting.loaded).toEqual([NORD.id]);
    });
  });
}

suite('SQLite', () => undefined);

if (PG_URL) {
  suite('PostgreSQL', () => PG_URL);
  // Every business in one schema keyed by business, as a plain role so that row-level security applies.
  let plain = '';
  beforeAll(async () => {
    plain = await plainRoleUrl('usp_host_keyed_app');
  });
  suite('PostgreSQL keyed by business', () => plain, true);
}
