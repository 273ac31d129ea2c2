/**
 * The From of a business's mail is an address object: the business's name is only ever its display
 * name, so a name with a colon, or one that spells an address, changes neither the From address
 * nor the envelope sender (checked at a real SMTP server on loopback).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

let t: TestServer | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await t?.close();
  await sink?.close();
});

async function confirmationFrom(name: string, from?: string) {
  sink = await startSmtpSink();
  const business = demoBusiness();
  business.business = { ...business.business, name };
  t = await startTestServer({ business, mail: { smtpUrl: sink.url, startWorker: false, ...(from ? { from } : {}) } });
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(3),
    end_date: day(3),
  });
  expect(
    (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER }))
      .status,
  ).toBe(201);
  await t.server.mailWorker!.tick();
  const [mail] = sink.to(BUYER.email);
  expect(mail, 'the confirmation arrived').toBeDefined();
  return { mail, envelope: sink.envelopes[0] };
}

describe('the default From is the business name at the configured address, whatever the name holds', () => {
  test('a business named "Hair: Studio 5 <evil@x.test>" sends from no-reply@ the public host, with the name intact as the display name', async () => {
    const name = 'Hair: Studio 5 <evil@x.test>';
    const { mail, envelope } = await confirmationFrom(name);
    const host = new URL(t!.url).hostname;
    expect(envelope.from).toBe(`no-reply@${host}`);
    expect(mail.from?.value).toEqual([{ name, address: `no-reply@${host}` }]);
    expect(JSON.stringify(sink!.envelopes)).not.toContain('evil@x.test');
  });

  test('a business named "Hair: Studio 5" still has a From address', async () => {
    const { mail, envelope } = await confirmationFrom('Hair: Studio 5');
    const host = new URL(t!.url).hostname;
    expect(envelope.from).toBe(`no-reply@${host}`);
    expect(mail.from?.value).toEqual([{ name: 'Hair: Studio 5', address: `no-reply@${host}` }]);
  });

  test('--mail-from keeps its address and name; a business name cannot change it', async () => {
    const { mail, envelope } = await confirmationFrom('Hair <evil@x.test>', 'Demo Salon <bookings@salon.example>');
    expect(envelope.from).toBe('bookings@salon.example');
    expect(mail.from?.value).toEqual([{ name: 'Demo Salon', address: 'bookings@salon.example' }]);
  });

  test('--mail-from is read as a name and an address, and refused when it is neither', async () => {
    const { parseMailFrom } = await import('../../src/server/mail-wiring.js');
    expect(parseMailFrom('"Hair: Studio 5" <a@b.example>')).toEqual({ name: 'Hair: Studio 5', address: 'a@b.example' });
    expect(parseMailFrom('a@b.example')).toEqual({ name: '', address: 'a@b.example' });
    expect(parseMailFrom('Name\r\nBcc: x@y.example <a@b.example>')).toBeNull();
    expect(parseMailFrom('no address here')).toBeNull();
  });
});
