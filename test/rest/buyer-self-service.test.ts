/**
 * The buyer helps herself (issue 37): the booking page, opened with the booking's own credential
 * (the mail's link), cancels or moves the booking through cancel_booking and reschedule_booking,
 * saying first what it costs; another booking's credential, a forged one, or a post without the
 * page's CSRF token changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const HTML = { Accept: 'text/html' };

async function book(t: TestServer, service: string, n: number, at = 'T10:00') {
  const q = await t.call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) });
  const slot = q.body.slots.find((s: any) => s.start.includes(at)) ?? q.body.slots[0];
  const b = await t.call('POST', '/bookings', { service_id: service, slot_id: slot.id, buyer: BUYER });
  expect(b.status).toBe(201);
  expect(b.body.booking_scoped_credential.value).toMatch(/^bsc_/);
  return { id: b.body.booking.id as string, token: b.body.booking_scoped_credential.value as string };
}

/** A page as the browser opens it: its text, CSRF form token and cookie. */
async function open(t: TestServer, path: string) {
  const res = await fetch(t.url + path, { headers: HTML, redirect: 'manual' });
  const text = await res.text();
  return {
    res,
    text,
    csrf: /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '',
    cookie: (res.headers.get('set-cookie') ?? '').split(';')[0],
  };
}

async function post(t: TestServer, path: string, form: Record<string, string>, cookie: string) {
  const res = await fetch(t.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html', cookie },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { res, text: await res.text() };
}

const state = async (t: TestServer, id: string) => (await t.call('GET', `/bookings/${id}`)).body.booking;

describe('the booking page lets the buyer cancel or move her booking under its own credential', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('cancels within the free window from the page, then moves another booking with the fee shown first', async () => {
    t = await startTestServer();
    const first = await book(t, 'svc_color_consult', 3);
    const page = await open(t, `/booking/${first.id}?token=${first.token}`);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('Cancel this booking');
    expect(page.text).toContain('Move to another time');
    expect(page.text).toContain('+1 212 555 0147');
    expect(page.text).toContain('hello@maple-pine.example');

    const ask = await open(t, `/booking/${first.id}/cancel?token=${first.token}`);
    expect(ask.res.status).toBe(200);
    expect(ask.text).toContain('Cancelling now is free');
    expect((await state(t, first.id)).status).toBe('pending');
    const done = await post(t, `/booking/${first.id}/cancel`, { csrf: ask.csrf, token: first.token }, ask.cookie);
    expect(done.res.status).toBe(200);
    expect(done.text).toContain('Your booking is canceled');
    const canceled = await state(t, first.id);
    expect(canceled.status).toBe('canceled');
    expect(canceled.cancellation).toMatchObject({ canceled_by: 'buyer', fee: 0 });

    // Less than 24 hours before the haircut: moving it costs the $10.00 fee, said before she confirms.
    const second = await book(t, 'svc_haircut', 1);
    const move = await open(t, `/booking/${second.id}/move?token=${second.token}`);
    expect(move.res.status).toBe(200);
    expect(move.text).toContain('$10.00');
    expect(move.text).toMatch(/<legend>\w+day, December \d+<\/legend>/);
    const slotId = /name="slot_id" value="([^"]+)"/.exec(move.text)![1];
    const moved = await post(
      t,
      `/booking/${second.id}/move`,
      { csrf: move.csrf, token: second.token, slot_id: slotId },
      move.cookie,
    );
    expect(moved.res.status).toBe(303);
    expect(moved.res.headers.get('location')).toBe(`/booking/${second.id}?token=${second.token}`);
    const after = await state(t, second.id);
    expect(after.slot.id).toBe(slotId);
    expect(after.status).not.toBe('canceled');

    // The same time again is taken now: the refusal is in words, with the way back.
    const third = await book(t, 'svc_haircut', 2);
    const again = await open(t, `/booking/${third.id}/move?token=${third.token}`);
    const refused = await post(
      t,
      `/booking/${third.id}/move`,
      { csrf: again.csrf, token: third.token, slot_id: slotId },
      again.cookie,
    );
    expect(refused.res.status).toBeGreaterThanOrEqual(400);
    expect(refused.text).toContain('Nothing was changed');
    expect(refused.text).toContain(`/booking/${third.id}?token=${third.token}`);
  });

  it("another booking's credential or a forged one cannot cancel or move it, and a post without the CSRF token is refused", async () => {
    t = await startTestServer();
    const mine = await book(t, 'svc_color_consult', 3);
    const other = await book(t, 'svc_color_consult', 4);
    const ask = await open(t, `/booking/${other.id}/cancel?token=${other.token}`);
    expect(ask.res.status).toBe(200);
    // The other booking's page form, aimed at mine with its credential.
    const foreign = await post(t, `/booking/${mine.id}/cancel`, { csrf: ask.csrf, token: other.token }, ask.cookie);
    expect(foreign.res.status).toBeGreaterThanOrEqual(400);
    const forged = await post(
      t,
      `/booking/${mine.id}/cancel`,
      { csrf: ask.csrf, token: `bsc_${'a'.repeat(32)}` },
      ask.cookie,
    );
    expect(forged.res.status).toBeGreaterThanOrEqual(400);
    const move = await open(t, `/booking/${other.id}/move?token=${other.token}`);
    const slotId = /name="slot_id" value="([^"]+)"/.exec(move.text)![1];
    const foreignMove = await post(
      t,
      `/booking/${mine.id}/move`,
      { csrf: move.csrf, token: other.token, slot_id: slotId },
      move.cookie,
    );
    expect(foreignMove.res.status).toBeGreaterThanOrEqual(400);
    expect((await open(t, `/booking/${mine.id}/cancel?token=${other.token}`)).res.status).toBeGreaterThanOrEqual(400);
    const noCsrf = await post(t, `/booking/${mine.id}/cancel`, { token: mine.token }, ask.cookie);
    expect(noCsrf.res.status).toBe(403);
    expect(noCsrf.text).toContain('This form has expired');
    expect((await state(t, mine.id)).status).toBe('pending');
    expect((await state(t, other.id)).status).toBe('pending');
    // Without the credential the page shows the booking and offers no change.
    expect((await open(t, `/booking/${mine.id}`)).text).not.toContain('Cancel this booking');
    expect((await open(t, `/booking/${mine.id}?token=${other.token}`)).text).not.toContain('Cancel this booking');
    expect((await open(t, `/booking/${mine.id}?token=bsc_${'a'.repeat(32)}`)).text).not.toContain(
      'Cancel this booking',
    );
  });

  it('a cancel outside the policy is refused in words, with the way back to the booking, and changes nothing', async () => {
    t = await startTestServer();
    const b = await book(t, 'svc_massage_60', 1);
    // Paid on its checkout page (sandbox), so the booking is confirmed and stays so as time passes.
    const checkout = await open(t, `/checkout/${b.id}`);
    expect(
      (await post(t, `/checkout/${b.id}`, { choice: 'pay', csrf: checkout.csrf }, checkout.cookie)).res.status,
    ).toBe(303);
    expect((await state(t, b.id)).status).toBe('confirmed');
    const start = Date.parse((await state(t, b.id)).slot.start);
    t.clock.set(start - 3_600_000);
    const ask = await open(t, `/booking/${b.id}/cancel?token=${b.token}`);
    expect(ask.res.status).toBe(409);
    expect(ask.text).toContain('It is too close to the start to cancel.');
    expect(ask.text).toContain(`href="/booking/${b.id}?token=${b.token}"`);
    expect(ask.text).not.toContain('name="csrf"');
    // The confirm form of an earlier visit, posted now: the operation says no in the same words.
    t.clock.set(start - 3 * 86_400_000);
    const early = await open(t, `/booking/${b.id}/cancel?token=${b.token}`);
    t.clock.set(start - 3_600_000);
    const late = await post(t, `/booking/${b.id}/cancel`, { csrf: early.csrf, token: b.token }, early.cookie);
    expect(late.res.status).toBe(409);
    expect(late.text).toContain('It is too close to the start time to cancel this booking.');
    expect((await state(t, b.id)).status).not.toBe('canceled');
  });

  it('the link in the mail carries the booking credential: it opens the page with the actions and cancels that booking', async () => {
    const sink = await startSmtpSink({ user: 'relay-user', pass: 's3cret-relay-pass' });
    try {
      t = await startTestServer({
        mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
      });
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      const made = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: q.body.slots[0].id,
        buyer: BUYER,
      });
      expect(made.status).toBe(201);
      const id = made.body.booking.id as string;
      await t.server.mailWorker!.tick();
      await t.server.mailWorker!.tick();
      const mail = sink.to(BUYER.email)[0];
      const link = new RegExp(`/booking/${id}\\?token=(bsc_[a-z2-7]+)`).exec(String(mail.text));
      expect(link, 'the booking link carries its credential').not.toBeNull();
      const token = link![1];
      expect(token).not.toBe(made.body.booking_scoped_credential.value);
      expect((await open(t, `/booking/${id}?token=${token}`)).text).toContain('Cancel this booking');
      const ask = await open(t, `/booking/${id}/cancel?token=${token}`);
      expect(ask.text).toContain('Cancelling now is free');
      const done = await post(t, `/booking/${id}/cancel`, { csrf: ask.csrf, token }, ask.cookie);
      expect(done.res.status).toBe(200);
      expect((await state(t, id)).status).toBe('canceled');

      // A booking waiting for the business: its "requested" mail's link carries the credential too.
      const q2 = await t.call('POST', '/availability/query', {
        service_id: 'svc_color_consult',
        start_date: day(4),
        end_date: day(4),
      });
      const waiting = await t.call('POST', '/bookings', {
        service_id: 'svc_color_consult',
        slot_id: q2.body.slots[0].id,
        buyer: BUYER,
      });
      expect(waiting.body.booking.status).toBe('pending');
      await t.server.mailWorker!.tick();
      await t.server.mailWorker!.tick();
      const texts = sink.to(BUYER.email).map((m) => String(m.text));
      expect(texts.some((x) => new RegExp(`/booking/${waiting.body.booking.id}\\?token=bsc_`).test(x))).toBe(true);
    } finally {
      await sink.close();
    }
  });
});

describe('the quote names the instants its terms turn on', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('inside the free windows the quote says until when cancelling and moving are free (24 hours before the start); after them it says nothing of it', async () => {
    t = await startTestServer();
    const early = await book(t, 'svc_haircut', 3);
    const start = Date.parse((await state(t, early.id)).slot.start);
    const quote = async (id: string, change: string) =>
      (await t.call('GET', `/ext/usp-server/bookings/${id}/quote?change=${change}`)).body.quote;
    expect(Date.parse((await quote(early.id, 'cancel')).free_until)).toBe(start - 24 * 3600_000);
    expect(Date.parse((await quote(early.id, 'reschedule')).free_until)).toBe(start - 24 * 3600_000);
    const late = await book(t, 'svc_haircut', 0, 'T');
    expect(await quote(late.id, 'cancel')).not.toHaveProperty('free_until');
    expect(await quote(late.id, 'reschedule')).not.toHaveProperty('free_until');
  });
});
