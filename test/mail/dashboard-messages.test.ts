/** The business sees what was sent: a booking's messages with their state, in the admin API and on the dashboard's booking screen. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

let t: TestServer;
let sink: SmtpSink;
beforeEach(async () => {
  sink = await startSmtpSink();
  t = await startTestServer({ mail: { smtpUrl: sink.url, startWorker: false } });
  await addBusinessUser(t.server.store, 'owner@salon.example', 'correct horse battery staple', t.clock.now());
});
afterEach(async () => {
  await t.close();
  await sink.close();
});

/** The dashboard page at `path`, through a signed-in session. */
async function dashboardPage(path: string): Promise<string> {
  const cookie: string[] = [];
  const remember = (r: Response) => (cookie.push(...r.headers.getSetCookie().map((c) => c.split(';')[0])), r);
  const headers = () => ({ cookie: cookie.join('; ') });
  const form = await remember(await fetch(`${t.url}/admin/login`, { headers: headers() })).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(form)![1];
  const body = new URLSearchParams({
    _csrf: token,
    email: 'owner@salon.example',
    password: 'correct horse battery staple',
  });
  remember(
    await fetch(`${t.url}/admin/login`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    }),
  );
  return (await fetch(t.url + path, { headers: headers() })).text();
}

describe("a booking's messages and their state are listed for the business", () => {
  it('a sent confirmation, a canceled reminder and a failed cancellation show with their state and error', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const b = (
      await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER })
    ).body.booking;
    await t.server.mailWorker!.tick();
    sink.refuse(550);
    await t.call('POST', `/bookings/${b.id}/cancel`, {});
    await t.server.mailWorker!.tick();
    const detail = await t.call('GET', `/admin/bookings/${b.id}`, undefined, { apiKey: ADMIN_KEY, profile: null });
    expect(detail.status).toBe(200);
    const states = Object.fromEntries(
      (detail.body.messages as Array<{ kind: string; status: string }>).map((m) => [m.kind, m.status]),
    );
    expect(states).toEqual({ booking_confirmed: 'sent', reminder: 'canceled', booking_canceled: 'failed' });
    const page = await dashboardPage(`/admin/ui/bookings/${b.id}`);
    expect(page).toContain('Messages to the buyer');
    expect(page).toMatch(/Confirmation<\/td><td>ada@example.com<\/td><td><span class="badge">sent/);
    expect(page).toMatch(/Cancellation<\/td>.*failed.*550/s);
  });
});

describe('the Mail screen lists the mail actually sent, newest first, with its state and when', () => {
  it('a sent confirmation, a queued reminder and a failed cancellation are listed with their state, times in the business zone, and the error', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const b = (
      await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER })
    ).body.booking;
    await t.server.mailWorker!.tick();
    const other = (
      await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: q.body.slots[1].id,
        buyer: { ...BUYER, email: 'bo@example.com' },
      })
    ).body.booking;
    await t.server.mailWorker!.tick();
    sink.refuse(550);
    await t.call('POST', `/bookings/${other.id}/cancel`, {});
    await t.server.mailWorker!.tick();
    const log = await t.call('GET', '/admin/mail/messages?limit=10', undefined, { apiKey: ADMIN_KEY, profile: null });
    expect(log.status).toBe(200);
    const rows = (
      log.body.messages as Array<{
        kind: string;
        recipient: string;
        status: string;
        booking_id?: string;
        sent_at?: string;
        error?: string;
      }>
    ).map((m) => [m.kind, m.recipient, m.status, m.booking_id, Boolean(m.sent_at)]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['booking_confirmed', 'ada@example.com', 'sent', b.id, true],
        ['reminder', 'ada@example.com', 'queued', b.id, false],
        ['booking_canceled', 'bo@example.com', 'failed', other.id, false],
      ]),
    );
    const page = await dashboardPage('/admin/ui/mail');
    expect(page).toContain('Sent and waiting');
    expect(page).toContain('Queued (America/New_York)');
    expect(page).toMatch(
      new RegExp(
        `href="/admin/ui/bookings/${b.id}">Booking confirmed</a></td><td data-col="To">ada@example.com</td><td data-col="State"><span class="state s-sent">sent`,
      ),
    );
    expect(page).toMatch(
      /Booking canceled<\/a><\/td><td data-col="To">bo@example.com<\/td><td data-col="State"><span class="state s-failed">failed<\/span>.*550/s,
    );
    expect(page).toMatch(
      /s-queued">queued<\/span><\/td>\s*<td data-col="When">due <time datetime="[^"]+">\w{3} \d+ \w{3} \d\d:\d\d<\/time>/,
    );
  });
});
