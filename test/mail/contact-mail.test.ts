/**
 * Every mail says how to reach the business (issue 36): its phone and email from the business
 * definition, in the reader's language, in the text and the HTML, through a real SMTP server on
 * loopback; a business that publishes neither gets no such line.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

let sink: SmtpSink | undefined;
let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  await sink?.close();
});

async function rig(business = demoBusiness()) {
  sink = await startSmtpSink({ user: 'relay-user', pass: 's3cret-relay-pass' });
  t = await startTestServer({
    business,
    mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
  });
  return { t, sink };
}

async function book(t: TestServer, service: string, buyer: Record<string, unknown> = BUYER) {
  const q = await t.call('POST', '/availability/query', { service_id: service, start_date: day(3), end_date: day(3) });
  const r = await t.call('POST', '/bookings', { service_id: service, slot_id: q.body.slots[0].id, buyer });
  expect(r.status).toBe(201);
  return r.body.booking;
}

const send = async (t: TestServer) => {
  await t.server.mailWorker!.tick();
  await t.server.mailWorker!.tick();
};

describe("every mail names the business's phone and email", () => {
  test('a confirmation and a payment request, in text and HTML', async () => {
    const { t, sink } = await rig();
    await book(t, 'svc_haircut');
    await book(t, 'svc_massage_60', { ...BUYER, email: 'pay@example.com' });
    await send(t);
    const mails = [...sink.to(BUYER.email), ...sink.to('pay@example.com')];
    expect(mails.map((m) => m.subject?.split(':')[0]).sort()).toEqual([
      'Confirmed',
      'Payment needed to keep Deep Tissue Massage (60 min) at Maple & Pine Salon and Studio',
    ]);
    for (const m of mails) {
      expect(m.text).toContain('Questions? Call +1 212 555 0147 or write to hello@maple-pine.example.');
      expect(String(m.html)).toContain('Questions? Call +1 212 555 0147 or write to hello@maple-pine.example.');
    }
  });

  test("in the reader's language", async () => {
    const { t, sink } = await rig();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: { ...BUYER, email: 'es@example.com' } },
      { headers: { 'Accept-Language': 'es' } },
    );
    await send(t);
    const [m] = sink.to('es@example.com');
    expect(m.text).toContain('¿Preguntas? Llama al +1 212 555 0147 o escribe a hello@maple-pine.example.');
  });

  test('a business that publishes no contact gets no contact line', async () => {
    const def = demoBusiness();
    const { t, sink } = await rig({ ...def, business: { ...def.business, contact: undefined } });
    await book(t, 'svc_haircut');
    await send(t);
    const [m] = sink.to(BUYER.email);
    expect(m.text).not.toContain('Questions?');
    expect(m.text).toContain('--');
  });
});
