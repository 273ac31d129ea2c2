/**
 * The person's choices: reminders can be turned off by the business, and a platform that tells
 * buyers itself (its profile's capability, remembered on the booking or entry) gets no mail sent
 * about its bookings by the business. Confirmations always go otherwise.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { BookingRecord } from '../../src/domain/records.js';
import { PLATFORM_MESSAGES_CAPABILITY } from '../../src/operations/index.js';
import { markPlatformMessages, queueMailForEvents } from '../../src/operations/notifications/mail-messages.js';
import type { OperationContext } from '../../src/operations/core/context.js';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
afterEach(async () => {
  await t.close();
});

async function bookHaircut() {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(3),
    end_date: day(3),
  });
  const r = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER });
  expect(r.status).toBe(201);
  return r.body.booking.id as string;
}

describe("reminders are the business's to turn off; transactional mail is not", () => {
  test('with settings.mail_reminders false a booking queues its confirmation and no reminder (the webhook reminder is still scheduled)', async () => {
    t = await startTestServer({ business: demoBusiness({ mail_reminders: false }) });
    const id = await bookHaircut();
    const kinds = (await t.server.store.read((tx) => tx.mail.forSubject(id))).map((m) => m.kind);
    expect(kinds).toEqual(['booking_confirmed']);
    const events = await t.server.store.read((tx) => tx.outbox.recent(50));
    expect(events.some((e) => e.event === 'booking.reminder' && e.order_key === id)).toBe(true);
  });

  test('by default the same booking queues its confirmation and its reminder', async () => {
    t = await startTestServer();
    const id = await bookHaircut();
    expect((await t.server.store.read((tx) => tx.mail.forSubject(id))).map((m) => m.kind).sort()).toEqual([
      'booking_confirmed',
      'reminder',
    ]);
  });
});

describe('a platform that sends its own messages', () => {
  test('a caller whose profile declares the capability marks what it makes; one that does not, does not', () => {
    const rec = { priv: {} as { platform_messages?: boolean } };
    markPlatformMessages(
      {
        caller: {
          principal: 'p',
          profile: 'x',
          business: false,
          platform: { version: '2026-08-20', capabilities: ['dev.usp-protocol.services.bookings'] },
        },
      } as unknown as OperationContext,
      rec,
    );
    expect(rec.priv.platform_messages).toBeUndefined();
    markPlatformMessages(
      {
        caller: {
          principal: 'p',
          profile: 'x',
          business: false,
          platform: { version: '2026-08-20', capabilities: [PLATFORM_MESSAGES_CAPABILITY] },
        },
      } as unknown as OperationContext,
      rec,
    );
    expect(rec.priv.platform_messages).toBe(true);
  });

  test('a booking marked as told by its platform queues no mail for its events, even when the business cancels it', async () => {
    t = await startTestServer();
    const id = await bookHaircut();
    await t.server.store.transaction(async (tx) => {
      const rec = (await tx.bookings.get(id)) as BookingRecord;
      rec.priv.platform_messages = true;
      await tx.bookings.update(rec);
    });
    const before = (await t.server.store.read((tx) => tx.mail.forSubject(id))).length;
    const event = {
      event_id: 'evt_told',
      event: 'booking.canceled',
      order_key: id,
      principal: null,
      profile: null,
      payload: { booking_id: id },
      created_ms: t.clock.now(),
      due_ms: t.clock.now(),
    };
    await t.server.store.transaction((tx) => queueMailForEvents(tx, t.server.biz, [event], t.clock.now()));
    expect((await t.server.store.read((tx) => tx.mail.forSubject(id))).length).toBe(before);
    const unmarked = await bookHaircut();
    const other = { ...event, event_id: 'evt_untold', payload: { booking_id: unmarked } };
    await t.server.store.transaction((tx) => queueMailForEvents(tx, t.server.biz, [other], t.clock.now()));
    expect((await t.server.store.read((tx) => tx.mail.forSubject(unmarked))).map((m) => m.kind)).toContain(
      'booking_canceled',
    );
  });
});
