/**
 * Buyers are told by mail, once per event: each of a booking, a reschedule, a cancellation, a
 * reminder, a payment request and a waitlist offer delivers exactly one message to a real SMTP
 * server on loopback, parsed with mailparser, its invite with node-ical (same UID as the booking
 * page's calendar file, SEQUENCE raised by a move, METHOD:CANCEL on a cancel).
 */
import ical from 'node-ical';
import type { ParsedMail } from 'mailparser';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

let sink: SmtpSink;
let t: TestServer;
const lines: string[] = [];
const log = {
  info: (msg: string, f?: Record<string, unknown>) => void lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
  warn: (msg: string, f?: Record<string, unknown>) => void lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
  error: (msg: string, f?: Record<string, unknown>) => void lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
  debug: () => undefined,
  child() {
    return log;
  },
};

beforeEach(async () => {
  lines.length = 0;
  sink = await startSmtpSink({ user: 'relay-user', pass: 's3cret-relay-pass' });
  t = await startTestServer({
    log: log as never,
    mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
  });
});
afterEach(async () => {
  await t.close();
  await sink.close();
});

const send = () => t.server.mailWorker!.tick();

async function slot(service: string, n: number, index = 0) {
  const q = await t.call('POST', '/availability/query', { service_id: service, start_date: day(n), end_date: day(n) });
  return q.body.slots[index];
}

function inviteOf(m: ParsedMail) {
  const part = m.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, 'a text/calendar part').toBeDefined();
  const parsed = ical.sync.parseICS(part!.content.toString('utf8'));
  const event = Object.values(parsed).find((v) => v?.type === 'VEVENT') as {
    uid: string;
    sequence: string | number;
    method?: string;
  };
  return {
    method: (parsed.vcalendar as unknown as { method: string }).method,
    uid: event.uid,
    sequence: Number(event.sequence),
  };
}

async function book(key?: string) {
  const s = await slot('svc_haircut', 3);
  const r = await t.call(
    'POST',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: s.id, buyer: BUYER },
    key ? { idempotencyKey: key } : {},
  );
  expect(r.status).toBe(201);
  return r.body.booking as { id: string; revision: string };
}

describe('a confirmed booking sends one confirmation with an invite (METHOD:REQUEST, the booking page UID)', () => {
  test('the buyer receives one mail with the business, the time, the place, the terms, the booking link and a parsable REQUEST invite', async () => {
    const b = await book();
    await send();
    await send();
    const mails = sink.to(BUYER.email);
    expect(mails).toHaveLength(1);
    const m = mails[0];
    expect(m.subject).toMatch(/^Confirmed: /);
    expect(m.from?.value[0].address).toBe('bookings@salon.example');
    expect(m.text).toContain(`/booking/${b.id}`);
    expect(m.text).toMatch(/When: /);
    expect(m.text).toMatch(/Terms:/);
    expect(m.html).toContain('<html lang="en">');
    const inv = inviteOf(m);
    expect(inv.method).toBe('REQUEST');
    const file = await fetch(`${t.url}/booking/${b.id}/calendar.ics`).then((r) => r.text());
    const fromPage = Object.values(ical.sync.parseICS(file)).find((v) => v?.type === 'VEVENT') as { uid: string };
    expect(inv.uid).toBe(fromPage.uid);
    expect(inv.sequence).toBe(0);
    const rows = await t.server.store.read((tx) => tx.mail.forSubject(b.id));
    expect(rows.map((r) => [r.kind, r.status]).sort()).toEqual([
      ['booking_confirmed', 'sent'],
      ['reminder', 'queued'],
    ]);
  });

  test('an idempotent replay of the booking sends nothing more', async () => {
    const s = await slot('svc_haircut', 3);
    const body = { service_id: 'svc_haircut', slot_id: s.id, buyer: BUYER };
    const first = await t.call('POST', '/bookings', body, { idempotencyKey: 'same-key-1' });
    const again = await t.call('POST', '/bookings', body, { idempotencyKey: 'same-key-1' });
    expect([first.status, again.body.booking.id]).toEqual([201, first.body.booking.id]);
    await send();
    expect(sink.to(BUYER.email)).toHaveLength(1);
  });
});

describe('changes reach the buyer once each, with the same invite UID', () => {
  test('a reschedule sends one REQUEST with the same UID and a higher SEQUENCE; a cancellation one METHOD:CANCEL', async () => {
    const b = await book();
    await send();
    const other = await slot('svc_haircut', 4, 1);
    const rs = await t.call('POST', `/bookings/${b.id}/reschedule`, { slot_id: other.id });
    expect(rs.status).toBe(200);
    await send();
    const c = await t.call('POST', `/bookings/${b.id}/cancel`, {});
    expect(c.status).toBe(200);
    await send();
    await send();
    const mails = sink.to(BUYER.email);
    expect(mails.map((m) => m.subject?.split(':')[0])).toEqual(['Confirmed', 'Moved', 'Canceled']);
    const [first, moved, canceled] = mails.map(inviteOf);
    expect(moved.uid).toBe(first.uid);
    expect([moved.method, moved.sequence]).toEqual(['REQUEST', 1]);
    expect([canceled.uid, canceled.method, canceled.sequence]).toEqual([first.uid, 'CANCEL', 2]);
  });

  test('a reminder goes once at the reminder time, none before; the reminder of a canceled booking never goes', async () => {
    const b = await book();
    const kept = await t.call('GET', `/bookings/${b.id}`);
    const startMs = Date.parse(kept.body.booking.slot.start);
    await send();
    expect(sink.to(BUYER.email)).toHaveLength(1);
    t.clock.set(startMs - 86_400_000 - 1000);
    await send();
    expect(sink.to(BUYER.email)).toHaveLength(1);
    t.clock.set(startMs - 86_400_000 + 1000);
    await send();
    await send();
    const mails = sink.to(BUYER.email);
    expect(mails.map((m) => m.subject?.split(':')[0])).toEqual(['Confirmed', 'Reminder']);

    const second = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: (await slot('svc_haircut', 5)).id,
      buyer: { ...BUYER, email: 'grace@example.com' },
    });
    await t.call('POST', `/bookings/${second.body.booking.id}/cancel`, {});
    t.clock.set(Date.parse(second.body.booking.slot.start) - 3600_000);
    await send();
    expect(sink.to('grace@example.com').map((m) => m.subject?.split(':')[0])).toEqual(['Confirmed', 'Canceled']);
  });

  test('a booking that needs payment sends one payment request with the pay link and the deadline', async () => {
    const s = await slot('svc_massage_60', 3);
    const r = await t.call('POST', '/bookings', { service_id: 'svc_massage_60', slot_id: s.id, buyer: BUYER });
    expect(r.status).toBe(201);
    await send();
    const mails = sink.to(BUYER.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/^Payment needed/);
    expect(mails[0].text).toContain(r.body.booking.actions[0].continue_url);
    expect(mails[0].text).toMatch(/by .*20\d\d/);
    expect(mails[0].attachments.filter((a) => a.contentType === 'text/calendar')).toEqual([]);
  });

  test('a freed place sends one waitlist offer with its deadline to the first in line', async () => {
    const s = await slot('svc_yoga_class', 8);
    const big = await t.call('POST', '/bookings', {
      service_id: 'svc_yoga_class',
      slot_id: s.id,
      buyer: { ...BUYER, email: 'party@example.com' },
      party_size: 12,
    });
    expect(big.status).toBe(201);
    const join = await t.call('POST', '/waitlist', {
      service_id: 'svc_yoga_class',
      slot_id: s.id,
      buyer: { ...BUYER, email: 'first@example.com' },
    });
    expect(join.status).toBe(201);
    await t.call('POST', `/bookings/${big.body.booking.id}/cancel`, {}, { profile: null, apiKey: ADMIN_KEY });
    await send();
    await send();
    const offers = sink.to('first@example.com');
    expect(offers).toHaveLength(1);
    expect(offers[0].subject).toMatch(/^A place is free/);
    expect(offers[0].text).toMatch(/Accept or decline by /);
  });
});

describe('the relay: permanent refusals are recorded, temporary ones retried; credentials and buyers stay out of the logs', () => {
  test('a 550 marks the message failed at once and it is not tried again', async () => {
    sink.refuse(550);
    const b = await book();
    await send();
    t.clock.advance(3600_000);
    await send();
    const row = (await t.server.store.read((tx) => tx.mail.forSubject(b.id))).find(
      (r) => r.kind === 'booking_confirmed',
    )!;
    expect([row.status, row.attempts]).toEqual(['failed', 1]);
    expect(row.last_error).toMatch(/^550/);
    expect(sink.received).toHaveLength(0);
  });

  test('a 451 is retried after the backoff and then delivered once', async () => {
    sink.refuse(451);
    const b = await book();
    await send();
    await send();
    expect(sink.received).toHaveLength(0);
    t.clock.advance(31_000);
    await send();
    const row = (await t.server.store.read((tx) => tx.mail.forSubject(b.id))).find(
      (r) => r.kind === 'booking_confirmed',
    )!;
    expect([row.status, row.attempts]).toEqual(['sent', 2]);
    expect(sink.to(BUYER.email)).toHaveLength(1);
  });

  test('a worker that leased a message and died: nobody sends it until the lease lapses, then it goes once', async () => {
    await book();
    const now = t.clock.now();
    const leased = await t.server.store.transaction((tx) => tx.mail.claimDue(now, 10, now + 120_000));
    expect(leased).toHaveLength(1);
    await send();
    expect(sink.received).toHaveLength(0);
    t.clock.advance(120_001);
    await send();
    await send();
    expect(sink.to(BUYER.email)).toHaveLength(1);
  });

  test('no log line carries the relay password, the buyer address or the buyer name', async () => {
    sink.refuse(451);
    await book();
    await send();
    t.clock.advance(31_000);
    await send();
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('\n');
    expect(all).not.toContain('s3cret-relay-pass');
    expect(all).not.toContain(BUYER.email);
    expect(all).not.toContain(BUYER.last_name);
  });
});
