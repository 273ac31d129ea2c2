/** The buyer turns reminders off from the link in a reminder: a page with one button (a GET changes nothing), and no reminder mail follows. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

let t: TestServer;
let sink: SmtpSink;
beforeEach(async () => {
  sink = await startSmtpSink();
  t = await startTestServer({ mail: { smtpUrl: sink.url, startWorker: false } });
});
afterEach(async () => {
  await t.close();
  await sink.close();
});

async function book(n: number, email: string) {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(n),
    end_date: day(n),
  });
  return (
    await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: { ...BUYER, email },
    })
  ).body.booking;
}

describe('a reminder carries a link that stops the reminders of its booking', () => {
  test('following the link shows a form and stops nothing; posting it withdraws the queued reminder and no later move queues one', async () => {
    const first = await book(3, 'ada@example.com');
    const startMs = Date.parse(first.slot.start);
    t.clock.set(startMs - 86_400_000 + 1000);
    await t.server.mailWorker!.tick();
    const reminder = sink.to('ada@example.com').find((m) => m.subject?.startsWith('Reminder'));
    const link = /Stop reminders for this booking: (\S+)/.exec(reminder?.text ?? '')?.[1];
    expect(link).toBe(`${t.url}/booking/${first.id}/reminders`);

    const other = await book(6, 'grace@example.com');
    const path = `/booking/${other.id}/reminders`;
    const jar: string[] = [];
    const got = await fetch(t.url + path, { headers: { accept: 'text/html' } });
    jar.push(...got.headers.getSetCookie().map((c) => c.split(';')[0]));
    const form = await got.text();
    expect(form).toContain('Stop reminders for this booking?');
    expect(
      (await t.server.store.read((tx) => tx.mail.forSubject(other.id))).find((m) => m.kind === 'reminder')?.status,
    ).toBe('queued');

    const forged = await fetch(t.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=nope',
    });
    expect(forged.status).toBe(403);
    const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1];
    const posted = await fetch(t.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
      body: new URLSearchParams({ csrf }),
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('Reminders stopped');
    expect(
      (await t.server.store.read((tx) => tx.mail.forSubject(other.id))).find((m) => m.kind === 'reminder')?.status,
    ).toBe('canceled');

    const later = (
      await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(7), end_date: day(7) })
    ).body.slots[0];
    expect((await t.call('POST', `/bookings/${other.id}/reschedule`, { slot_id: later.id })).status).toBe(200);
    const rows = await t.server.store.read((tx) => tx.mail.forSubject(other.id));
    expect(rows.filter((m) => m.kind === 'reminder' && m.status === 'queued')).toEqual([]);
    expect(rows.some((m) => m.kind === 'booking_rescheduled')).toBe(true);
  });
});
