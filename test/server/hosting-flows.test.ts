/**
 * Two businesses on one hosting process, on SQLite and on PostgreSQL (the businesses in schemas of
 * their own and the deployment's directory in the database too; skipped, saying why, without
 * USP_TEST_PG_URL): on each, the flows every single-business test runs, at its own host name:
 * a booking over REST and over MCP (the official SDK client); a paid booking through the Stripe
 * emulator on its own connected account (Stripe Connect's `Stripe-Account`), whose signed event is
 * refused at the other business's webhook door; its mail delivered through the SMTP capture in its
 * own name; and an OAuth authorization code flow at each host, whose token the other host refuses.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ManualClock } from '../../src/operations/index.js';
import type { DeploymentDirectory } from '../../src/store/index.js';
import type { Hosting } from '../../src/server/hosting.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { linkedTokens, mcpCallAt, type OAuthTestServer } from '../oauth/support.js';
import { PG_URL, noteSkipped, plainRoleUrl } from '../pg/helpers.js';
import { deployTwo, nordPaidAtBooking, salonEntry, undeploy } from '../support/hosting.js';

const ACCOUNTS: Record<string, string> = { biz_maple_pine: 'acct_salon_0001', biz_nord_studio: 'acct_nord_0002' };
const SALON = {
  id: 'biz_maple_pine',
  host: 'salon.localhost',
  service: 'svc_haircut',
  paid: 'svc_massage_60',
  name: 'Maple & Pine',
};
const NORD = {
  id: 'biz_nord_studio',
  host: 'nord.localhost',
  service: 'svc_nord_trim',
  paid: 'svc_nord_trim',
  name: 'Nord Studio',
};
type Biz = typeof SALON;
const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };
const meta = { _meta: { usp: { profile: PLATFORM } } };

interface Rig {
  hosting: Hosting;
  directory: DeploymentDirectory;
  stripe: EmulatedStripe;
  sink: SmtpSink;
  codes: Map<string, string>;
  url(b: Biz): string;
  close(): Promise<void>;
}

async function deploy(db: string | undefined, keyed = false): Promise<Rig> {
  const clock = new ManualClock(TEST_NOW);
  const stripe = await startStripeEmulator({ now: () => clock.now() });
  const sink = await startSmtpSink();
  const d = await deployTwo({
    db,
    businesses: (dir) => [salonEntry(), nordPaidAtBooking(dir)],
    server: { clock },
    keyed,
    // One platform key and endpoint secret, a connected account per business; one mail relay, each From its own name.
    serverFor: (b) => ({
      mail: { smtpUrl: sink.url },
      payments: {
        provider: 'stripe',
        stripe: {
          secretKey: stripe.secretKey,
          webhookSecret: stripe.webhookSecret,
          apiUrl: stripe.url,
          account: ACCOUNTS[b.id],
        },
        startWorker: false,
      },
    }),
  });
  return {
    hosting: d.hosting,
    directory: d.directory,
    stripe,
    sink,
    codes: d.codes,
    url: (b) => d.url(b.host),
    async close() {
      await undeploy(d);
      await stripe.close();
      await sink.close();
    },
  };
}

async function bookOverRest(r: Rig, b: Biz, service: string, n: number) {
  const q = await hostCall(`${r.url(b)}/availability/query`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: service, start_date: day(n), end_date: day(n), limit: 1 },
  });
  expect(q.status, q.text).toBe(200);
  const made = await hostCall(`${r.url(b)}/bookings`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.booking;
}

const bookingAt = async (r: Rig, b: Biz, id: string) => hostCall(`${r.url(b)}/bookings/${id}`, { headers: AGENT });

function flows(engine: string, db: () => string | undefined, keyed = false) {
  describe(`two businesses on one process: booking, payment, mail and OAuth (${engine})`, () => {
    let r: Rig;
    beforeAll(async () => {
      vi.stubGlobal('fetch', hostFetch);
      r = await deploy(db(), keyed);
    }, 60_000);
    afterAll(async () => {
      await r?.close();
      vi.unstubAllGlobals();
    });

    test('each books over REST and over MCP at its own host, into its own store', async () => {
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const rest = await bookOverRest(r, b, b.service, 2);
        const client = new Client({ name: 'usp-hosting-flows', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', r.url(b)), { fetch: hostFetch }));
        try {
          const q: any = await client.callTool({
            name: 'usp_availability_query',
            arguments: { service_id: b.service, start_date: day(3), end_date: day(3), ...meta },
          });
          const made: any = await client.callTool({
            name: 'usp_bookings_create',
            arguments: { service_id: b.service, slot_id: q.structuredContent.slots[0].id, buyer: BUYER, ...meta },
          });
          expect(made.isError ?? false, JSON.stringify(made)).toBe(false);
          const mcpId = made.structuredContent.booking.id;
          for (const id of [rest.id, mcpId]) {
            expect((await bookingAt(r, b, id)).status).toBe(200);
            expect((await bookingAt(r, other, id)).status).toBe(404);
          }
        } finally {
          await client.close();
        }
      }
    });

    test("a paid booking is paid on the business's own connected account; its event is refused at the other business", async () => {
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const booking = await bookOverRest(r, b, b.paid, 4);
        expect(booking.status).toBe('requires_action');
        const session = await waitFor(
          async () => {
            await r.hosting.pool.peek(b.id, (s) => s.paymentWorker!.tick());
            return [...r.stripe.sessions.values()].some((s) => s.client_reference_id === booking.id);
          },
          5000,
          'the checkout session made',
        ).then(() => [...r.stripe.sessions.values()].find((s) => s.client_reference_id === booking.id)!);
        const create = r.stripe.requests.find(
          (q) => q.path === '/v1/checkout/sessions' && q.body.client_reference_id === booking.id,
        );
        expect(create?.account).toBe(ACCOUNTS[b.id]);
        const paid = r.stripe.pay(session.id);
        expect(paid.account).toBe(ACCOUNTS[b.id]);
        // The platform's endpoint secret signs every account's events: the other business still refuses this one.
        r.stripe.webhookUrl = `${r.url(other)}/payments/stripe/webhook`;
        expect(await r.stripe.deliver(paid)).toBe(400);
        r.stripe.webhookUrl = `${r.url(b)}/payments/stripe/webhook`;
        expect(await r.stripe.deliver(paid)).toBe(200);
        const after = await bookingAt(r, b, booking.id);
        expect(after.body.booking.status).toBe('confirmed');
        expect(after.body.booking.payment.status).toBe('paid');
      }
    });

    test("each business's mail is delivered in its own name, with links to its own origin only", async () => {
      await waitFor(
        () =>
          [SALON, NORD].every((b) => r.sink.received.some((m) => (m.from?.text ?? '').includes(`no-reply@${b.host}`))),
        10_000,
        'mail delivered for both businesses',
      );
      for (const [b, other] of [
        [SALON, NORD],
        [NORD, SALON],
      ] as const) {
        const mine = r.sink.received.filter((m) => (m.from?.text ?? '').includes(`no-reply@${b.host}`));
        const all = mine.map((m) => `${m.from?.text}\n${m.subject}\n${m.text}\n${m.html || ''}`).join('\n');
        expect(mine[0]!.from!.text).toContain(b.name);
        expect(all).toContain(r.url(b));
        expect(all).not.toContain(other.host);
        expect(all).not.toContain(other.name);
      }
    });

    test('an OAuth authorization code flow at each host; each token is refused at the other host', async () => {
      const as = (b: Biz) => ({ url: r.url(b), codes: r.codes }) as unknown as OAuthTestServer;
      const salon = await linkedTokens(as(SALON), 'grace@example.com');
      const nord = await linkedTokens(as(NORD), 'grace@example.com');
      const list = (b: Biz, token: string) =>
        mcpCallAt(r.url(b), 'uspserver_bookings_list', {}, { authorization: `Bearer ${token}` });
      expect((await list(SALON, salon.tokens.access_token)).status).toBe(200);
      expect((await list(NORD, nord.tokens.access_token)).status).toBe(200);
      for (const [b, token] of [
        [NORD, salon.tokens.access_token],
        [SALON, nord.tokens.access_token],
      ] as const) {
        const crossed = await list(b, token);
        expect(crossed.status).toBe(401);
        expect(crossed.headers.get('www-authenticate') ?? '').toContain('invalid_token');
      }
    });
  });
}

flows('SQLite', () => undefined);
if (PG_URL) {
  flows('PostgreSQL', () => PG_URL);
  // Keyed by business, as a plain role so that row-level security applies.
  let plain = '';
  beforeAll(async () => {
    plain = await plainRoleUrl('usp_flows_keyed_app');
  });
  flows('PostgreSQL keyed by business', () => plain, true);
} else
  describe.skip(noteSkipped('two businesses on one process: booking, payment, mail and OAuth (PostgreSQL)'), () => {
    test('each business books, is paid, mails and signs in at its own host', () => {});
  });
