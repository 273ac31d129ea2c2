/**
 * Mail is written in the buyer's language when the request said one (REST: Accept-Language; MCP:
 * `_meta["dev.usp-server/locale"]`, else the HTTP request's Accept-Language), else in the business's,
 * else English. The language is chosen when the message is queued and recorded on its row, and the
 * booking remembers it for its later mail (a cancellation by the business, a reminder).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { BusinessDef } from '../../src/domain/index.js';
import { ADMIN_KEY, BUYER, PLATFORM, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { mcpCallAt } from '../oauth/support.js';
import { en } from '../../src/mail/templates/en.js';
import { es } from '../../src/mail/templates/es.js';

let sink: SmtpSink;
let t: TestServer;
afterEach(async () => {
  await t?.close();
  await sink?.close();
});

async function start(business?: BusinessDef) {
  sink = await startSmtpSink();
  t = await startTestServer({ ...(business ? { business } : {}), mail: { smtpUrl: sink.url, startWorker: false } });
}

async function book(headers: Record<string, string> = {}) {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(3),
    end_date: day(3),
  });
  const r = await t.call(
    'POST',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER },
    { headers },
  );
  expect(r.status).toBe(201);
  return r.body.booking as { id: string };
}

async function mails() {
  await t.server.mailWorker!.tick();
  return sink.to(BUYER.email);
}

describe("mail in the buyer's language, else the business's", () => {
  test('a booking made with Accept-Language es is confirmed in Spanish, with Spanish dates, and the row records es', async () => {
    await start();
    const b = await book({ 'accept-language': 'es-ES,es;q=0.9,en;q=0.5' });
    const [m] = await mails();
    expect(m.subject).toMatch(/^Confirmada: /);
    expect(m.text).toContain('Tu reserva está confirmada');
    expect(m.text).toMatch(/Cuándo: .*(lunes|martes|miércoles|jueves|viernes|sábado|domingo)/);
    expect(m.text).toContain('Ver tu reserva');
    expect(m.html).toContain('<html lang="es">');
    const [row] = await t.server.store.read((tx) => tx.mail.forSubject(b.id));
    expect(row.locale).toBe('es-ES');
  });

  test('the booking keeps the buyer’s language: the business canceling it later (in English) still mails Spanish', async () => {
    await start();
    const b = await book({ 'accept-language': 'es' });
    const c = await t.call(
      'POST',
      `/bookings/${b.id}/cancel`,
      {},
      { apiKey: ADMIN_KEY, profile: null, headers: { 'accept-language': 'en-US' } },
    );
    expect(c.status).toBeLessThan(300);
    const [, canceled] = await mails();
    expect(canceled.subject).toMatch(/^Cancelada: /);
  });

  test('a booking made without a language is mailed in the business’s language: English for the demo, Spanish for a business whose locale is es-US', async () => {
    await start();
    await book();
    const [en] = await mails();
    expect(en.subject).toMatch(/^Confirmed: /);
    await t.close();
    await sink.close();
    const demo = demoBusiness();
    await start({ ...demo, business: { ...demo.business, locale: 'es-US' } });
    const b = await book();
    const [es] = await mails();
    expect(es.subject).toMatch(/^Confirmada: /);
    const [row] = await t.server.store.read((tx) => tx.mail.forSubject(b.id));
    expect(row.locale).toBe('es-US');
  });

  test('a language the templates do not have falls back to the business’s, then English; a malformed header is ignored', async () => {
    await start();
    await book({ 'accept-language': 'fr-FR' });
    await book({ 'accept-language': ';;;,*' });
    const got = await mails();
    expect(got.map((m) => m.subject?.split(':')[0])).toEqual(['Confirmed', 'Confirmed']);
  });

  test('an MCP host states the language in _meta["dev.usp-server/locale"]', async () => {
    await start();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    const r = await mcpCallAt(t.url, 'usp_bookings_create', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
      _meta: { usp: { profile: PLATFORM }, 'dev.usp-server/locale': 'es-MX' },
    });
    expect(r.body.result?.isError ?? false).toBe(false);
    const [m] = await mails();
    expect(m.subject).toMatch(/^Confirmada: /);
  });
});

describe('Spanish has its own words for every message', () => {
  const facts = {
    business: 'Salón',
    service: 'Corte',
    when: 'lunes',
    deadline: 'martes',
    due: '$10',
    fee: '$5',
    refund: '$20',
    paid: '$30',
    terms: [],
  };
  test('no subject, lead, label or account message of the Spanish file is the English text', () => {
    for (const kind of Object.keys(en.subject) as Array<keyof typeof en.subject>) {
      expect(es.subject[kind](facts), kind).not.toBe(en.subject[kind](facts));
      expect(es.lead[kind](facts).join(' '), kind).not.toBe(en.lead[kind](facts).join(' '));
    }
    for (const label of Object.keys(en.labels) as Array<keyof typeof en.labels>) {
      const [a, b] = [es.labels[label], en.labels[label]];
      expect(typeof a === 'function' ? a('X') : a, label).not.toBe(typeof b === 'function' ? b('X') : b);
    }
    expect(es.account.signup('123456').subject).not.toBe(en.account.signup('123456').subject);
    expect(es.account.reset('u', '30').lines).not.toEqual(en.account.reset('u', '30').lines);
  });
});
