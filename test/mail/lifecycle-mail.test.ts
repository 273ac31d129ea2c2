/**
 * The messages of a booking's other turns, each exactly one mail at a real SMTP server on loopback,
 * its contents read back: a request that waits for the business, then its confirmation; a declined
 * request; a payment received (the confirmation that says so) and a refund. And never twice: an
 * idempotent replay of the call that offers a waitlist place sends no second offer.
 */
import type { ParsedMail } from 'mailparser';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

const BUSINESS = demoBusiness().business.name;
let sink: SmtpSink;
let t: TestServer;

beforeEach(async () => {
  sink = await startSmtpSink();
  t = await startTestServer({
    mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
  });
});
afterEach(async () => {
  await t.close();
  await sink.close();
});

const admin = { profile: null, apiKey: ADMIN_KEY } as const;
const send = async () => {
  await t.server.mailWorker!.tick();
  await t.server.mailWorker!.tick();
};
const kind = (m: ParsedMail) => String(m.headers.get('x-usp-message-kind'));

async function slot(service: string, n: number, index = 0) {
  const q = await t.call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) });
  return q.body.slots[index] as { id: string; start: string };
}

async function book(service: string, n: number, email: string) {
  const r = await t.call('POST', '/bookings', {
    service_id: service,
    slot_id: (await slot(service, n)).id,
    buyer: { ...BUYER, email },
  });
  expect(r.status).toBe(201);
  return r.body.booking as { id: string; status: string; actions?: Array<{ payment_context: { amount_due: number } }> };
}

/** The business's name, the time in words (a weekday, a year), the booking link: what every booking mail carries. */
function expectBookingFacts(m: ParsedMail, bookingId: string) {
  const text = String(m.text);
  const business = BUSINESS;
  expect(m.subject).toContain(business);
  expect(text).toContain(`\n${business}\n`);
  expect(text).toMatch(/When: (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \w+ \d+, 20\d\d/);
  expect(text).toContain(`/booking/${bookingId}`);
  expect(String(m.html)).toContain(`/booking/${bookingId}`);
}

describe('a request the business must answer: one mail on the request, one on the answer', () => {
  test('a manual booking sends one "Requested" mail (the answer deadline), then one "Confirmed" with its invite when the business confirms', async () => {
    const b = await book('svc_color_consult', 3, 'asks@example.com');
    expect(b.status).toBe('pending');
    await send();
    let mails = sink.to('asks@example.com');
    expect(mails.map(kind)).toEqual(['booking_requested']);
    expectBookingFacts(mails[0], b.id);
    expect(mails[0].subject).toMatch(/^Requested: /);
    expect(mails[0].text).toMatch(/answers by \w+day, \w+ \d+, 20\d\d/);
    expect(mails[0].attachments.filter((a) => a.contentType === 'text/calendar')).toEqual([]);

    expect((await t.call('POST', `/bookings/${b.id}/confirm`, {}, admin)).status).toBe(200);
    await send();
    mails = sink.to('asks@example.com');
    expect(mails.map(kind)).toEqual(['booking_requested', 'booking_confirmed']);
    expectBookingFacts(mails[1], b.id);
    expect(mails[1].attachments.filter((a) => a.contentType === 'text/calendar')).toHaveLength(1);
  });

  test('another request the business declines sends one "Not accepted" mail and no invite', async () => {
    const b = await book('svc_color_consult', 4, 'declined@example.com');
    const d = await t.call('POST', `/admin/bookings/${b.id}/decline`, { reason: 'Fully booked that week' }, admin);
    expect(d.status).toBe(200);
    await send();
    const mails = sink.to('declined@example.com');
    expect(mails.map(kind)).toEqual(['booking_requested', 'booking_declined']);
    expectBookingFacts(mails[1], b.id);
    expect(mails[1].subject).toMatch(/^Not accepted: /);
    expect(mails[1].text).toMatch(/could not accept your request/);
    expect(mails[1].attachments.filter((a) => a.contentType === 'text/calendar')).toEqual([]);
  });
});

describe('money: a payment received and a refund issued are told once each, with the amounts', () => {
  test('paying sends one confirmation that says what was received; a refund sends one "Refund" mail with the amount', async () => {
    const b = await book('svc_massage_60', 3, 'payer@example.com');
    const due = b.actions![0].payment_context.amount_due;
    const paid = await t.call('POST', `/bookings/${b.id}/confirm-payment`, {
      payment_result: { status: 'paid', transaction_id: 'txn_mail_1', amount_paid: due, currency: 'USD' },
    });
    expect(paid.body.booking.status).toBe('confirmed');
    await send();
    const amount = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(due / 100);
    let mails = sink.to('payer@example.com');
    expect(mails.map(kind)).toEqual(['payment_needed', 'booking_confirmed']);
    expect(mails[0].text).toContain(`Still to pay: ${amount}`);
    expectBookingFacts(mails[1], b.id);
    expect(mails[1].text).toContain(`Payment received: ${amount}.`);
    expect(mails[1].text).toContain(`Price: ${amount}`);
    expect(mails[1].text).not.toContain('Still to pay');

    const r = await t.call('POST', `/admin/bookings/${b.id}/refund`, { reason: 'Therapist ill' }, admin);
    expect(r.status).toBe(200);
    await send();
    await send();
    mails = sink.to('payer@example.com');
    expect(mails.map(kind).filter((k) => k === 'refund_issued')).toHaveLength(1);
    const refund = mails.find((m) => kind(m) === 'refund_issued')!;
    expectBookingFacts(refund, b.id);
    expect(refund.subject).toBe(`Refund from ${BUSINESS}`);
    expect(refund.text).toContain(`has refunded ${amount} for`);
    // What came back, not a balance: the buyer is not told to pay again.
    expect(refund.text).not.toContain('Still to pay');
  });
});

describe('never twice: the waitlist offer', () => {
  test('an idempotent replay of the cancellation that freed the place sends no second offer', async () => {
    const s = await slot('svc_yoga_class', 8);
    const big = await t.call('POST', '/bookings', {
      service_id: 'svc_yoga_class',
      slot_id: s.id,
      buyer: { ...BUYER, email: 'party@example.com' },
      party_size: 12,
    });
    const join = await t.call('POST', '/waitlist', {
      service_id: 'svc_yoga_class',
      slot_id: s.id,
      buyer: { ...BUYER, email: 'waiting@example.com' },
    });
    expect([big.status, join.status]).toEqual([201, 201]);
    const first = await t.call(
      'POST',
      `/bookings/${big.body.booking.id}/cancel`,
      {},
      { idempotencyKey: 'free-the-class-1' },
    );
    await send();
    const again = await t.call(
      'POST',
      `/bookings/${big.body.booking.id}/cancel`,
      {},
      { idempotencyKey: 'free-the-class-1' },
    );
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.booking.revision).toBe(first.body.booking.revision);
    await send();
    t.clock.advance(60_000);
    await send();
    expect(sink.to('waiting@example.com').map(kind)).toEqual(['waitlist_offer']);
    const rows = await t.server.store.read((tx) => tx.mail.forSubject(join.body.entry.id));
    expect(rows.map((r) => [r.kind, r.status])).toEqual([['waitlist_offer', 'sent']]);
  });
});
