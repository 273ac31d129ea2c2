/**
 * A buyer's single-line members (names, email, phone) are refused at input when they hold a line
 * break or another control character, on both doors and in the front desk's walk-in form, with a
 * validation error naming the member: a platform cannot write a paragraph and a link of its own
 * into the business's mail, calendar entries or pages through a buyer's name.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectMcp, meta, normalizeError, type McpConn } from '../mcp/helpers.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const INJECTED = `Ada\r\n\r\nYour card was declined. Pay again at https://pay.evil.example/now\r\n${'x'.repeat(100)}`;

let t: TestServer;
let mcp: McpConn;
beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp('v2', 'http', t.url);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

async function slotId(n: number): Promise<string> {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(n),
    end_date: day(n),
  });
  return q.body.slots[0].id;
}

describe('REST: a buyer member with a line break or control character is a validation error, and nothing is booked', () => {
  test.each([
    ['buyer.first_name', { buyer: { ...BUYER, first_name: INJECTED } }],
    ['buyer.last_name', { buyer: { ...BUYER, last_name: 'Lovelace\nBcc: x@evil.example' } }],
    ['buyer.phone_number', { buyer: { ...BUYER, phone_number: '+1 555\r0100' } }],
    ['buyer.first_name', { buyer: { ...BUYER, first_name: 'Ada\u2028Line' } }],
    ['recipient.first_name', { buyer: BUYER, recipient: { ...BUYER, first_name: 'Max\u0000' } }],
  ])('%s refused', async (path, body) => {
    const r = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: await slotId(3), ...body });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain(path.split('.').pop()!);
    expect(JSON.stringify(r.body)).toContain('one line of text');
    const listed = await t.call('GET', '/admin/bookings?view=all', undefined, { apiKey: ADMIN_KEY, profile: null });
    expect(JSON.stringify(listed.body)).not.toContain('pay.evil.example');
  });

  test('a waitlist join and a booking update refuse the same; a plain name with spaces and accents is still accepted', async () => {
    const join = await t.call('POST', '/waitlist', {
      service_id: 'svc_yoga_class',
      buyer: { ...BUYER, first_name: INJECTED },
      preferred_dates: [day(3)],
    });
    expect(join.status).toBe(400);
    const ok = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: await slotId(4),
      buyer: { ...BUYER, first_name: 'Ana María', last_name: "O'Neil-Smith" },
    });
    expect(ok.status).toBe(201);
    const upd = await t.call(
      'PUT',
      `/bookings/${ok.body.booking.id}`,
      { buyer: { first_name: 'Ana\nMaría' } },
      { ifMatch: ok.headers.get('etag') ?? undefined },
    );
    expect(upd.status).toBe(400);
  });

  test('the front desk’s walk-in form refuses a name with a line break', async () => {
    const r = await t.call(
      'POST',
      '/admin/bookings',
      {
        service_id: 'svc_haircut',
        slot_id: await slotId(5),
        buyer: { first_name: INJECTED, phone_number: '+1 555 010 2030' },
      },
      { apiKey: ADMIN_KEY, profile: null },
    );
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('one line of text');
  });
});

describe('MCP (official SDK client): the same refusal on the booking and waitlist tools', () => {
  test('usp_bookings_create with a first name holding line breaks is invalid_request naming the member', async () => {
    const r = await mcp.call('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(6),
      end_date: day(6),
      ...meta(),
    });
    const slot = r.structuredContent.slots[0].id;
    let err: ReturnType<typeof normalizeError> | undefined;
    let result: unknown;
    try {
      result = await mcp.call('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: slot,
        buyer: { ...BUYER, first_name: INJECTED },
        ...meta(),
      });
    } catch (e) {
      err = normalizeError(e);
    }
    expect(result).toBeUndefined();
    expect(err?.code).toBe(-32600);
    expect(err?.data.errors).toEqual([
      { field: 'buyer.first_name', message: expect.stringContaining('one line of text') },
    ]);
  });

  test('usp_waitlist_join with a phone holding a carriage return is refused the same way', async () => {
    let err: ReturnType<typeof normalizeError> | undefined;
    let result: unknown;
    try {
      result = await mcp.call('usp_waitlist_join', {
        service_id: 'svc_yoga_class',
        buyer: { ...BUYER, phone_number: '+1 555\r\nX-Injected: 1' },
        preferred_dates: [day(3)],
        ...meta(),
      });
    } catch (e) {
      err = normalizeError(e);
    }
    expect(result).toBeUndefined();
    expect(err?.code).toBe(-32600);
    expect(err?.data.errors).toEqual([
      { field: 'buyer.phone_number', message: expect.stringContaining('one line of text') },
    ]);
  });
});

describe('mail: a name stored before the rule is still written on one line', () => {
  test('a booking whose stored first name holds line breaks gets a cancellation whose greeting is one line, with no paragraph of its own', async () => {
    const { startSmtpSink } = await import('../support/smtp-sink.js');
    const sink = await startSmtpSink();
    const m = await startTestServer({ mail: { smtpUrl: sink.url, startWorker: false } });
    try {
      const q = await m.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      const b = await m.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: q.body.slots[0].id,
        buyer: BUYER,
      });
      expect(b.status).toBe(201);
      await m.server.mailWorker!.tick();
      // What an earlier version let a platform store.
      await m.server.store.transaction(async (tx) => {
        const rec = (await tx.bookings.get(b.body.booking.id))!;
        rec.booking.buyer.first_name = INJECTED;
        await tx.frontdesk.rewrite('bookings', rec.booking.id, JSON.stringify(rec));
      });
      expect((await m.call('POST', `/bookings/${b.body.booking.id}/cancel`, {})).status).toBe(200);
      await m.server.mailWorker!.tick();
      const canceled = sink.to(BUYER.email).find((x) => x.subject?.startsWith('Canceled'));
      expect(canceled, 'the cancellation').toBeDefined();
      const lines = (canceled!.text ?? '').split(/\r?\n/);
      expect(lines.some((l) => l.startsWith('Your card was declined'))).toBe(false);
      expect(lines.find((l) => l.includes('Your card was declined'))).toMatch(/^Hello Ada Your card was declined/);
    } finally {
      await m.close();
      await sink.close();
    }
  });
});
