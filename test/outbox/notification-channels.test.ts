/**
 * The notification outbox has a channel per message, and one leased runner per channel hands its
 * messages to that channel's provider. Mail is the `email` channel (its worker sends to the SMTP
 * capture); an SMS channel is one adapter written here, under test/, and nothing else: a provider
 * and the shared runner over the `sms` channel. Each runner leases only its own channel's messages,
 * and a failure is retried on the shared backoff or recorded as failed for good.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  LeasedRunner,
  notificationQueue,
  notificationRetryDelayMs,
  type NotificationProvider,
} from '../../src/outbox/index.js';
import type { MailMessage } from '../../src/store/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

/** An SMS gateway refusal: for good (a number that cannot receive) or not (the gateway is busy). */
class SmsRefused extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** The whole SMS adapter: a provider for the `sms` channel (a gateway that records what it was given). */
function smsProvider(gateway: { sent: MailMessage[]; refuse?: SmsRefused }): NotificationProvider {
  return {
    channel: 'sms',
    noun: 'sms',
    async send(m) {
      if (gateway.refuse) throw gateway.refuse;
      gateway.sent.push(m);
    },
    failure: (err) => ({
      permanent: err instanceof SmsRefused && err.permanent,
      error: err instanceof Error ? err.message : String(err),
    }),
  };
}

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

/** A booking through REST (its confirmation queued on `email`) and a text about it queued on `sms`. */
async function bookingWithText(): Promise<{ bookingId: string; smsId: string }> {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(3),
    end_date: day(3),
  });
  const b = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER });
  expect(b.status).toBe(201);
  const bookingId = b.body.booking.id as string;
  const smsId = `evt_sms|booking_confirmed|+15555550100`;
  const now = t.clock.now();
  await t.server.store.transaction((tx) =>
    tx.mail.enqueue({
      id: smsId,
      channel: 'sms',
      kind: 'booking_confirmed',
      subject_id: bookingId,
      recipient: '+15555550100',
      locale: null,
      payload: {},
      due_ms: now,
      created_ms: now,
    }),
  );
  return { bookingId, smsId };
}

const smsRunner = (gateway: { sent: MailMessage[]; refuse?: SmsRefused }) =>
  new LeasedRunner(notificationQueue(smsProvider(gateway)), {
    store: t.server.store,
    now: () => t.clock.now(),
    log: silentLogger,
  });

describe('one outbox, a channel per message, one runner per channel', () => {
  test('the mail worker sends only the email messages; the SMS runner sends only the SMS, each once', async () => {
    const { bookingId, smsId } = await bookingWithText();
    const gateway = { sent: [] as MailMessage[] };
    await t.server.mailWorker!.tick();
    expect(sink.to(BUYER.email).map((m) => m.subject)).toEqual([expect.stringMatching(/^Confirmed: /)]);
    expect((await t.server.store.read((tx) => tx.mail.get(smsId)))?.status).toBe('queued');
    await smsRunner(gateway).tick();
    await smsRunner(gateway).tick();
    expect(gateway.sent.map((m) => [m.id, m.channel, m.recipient])).toEqual([[smsId, 'sms', '+15555550100']]);
    await t.server.mailWorker!.tick();
    expect(sink.received.length).toBe(1);
    const rows = await t.server.store.read((tx) => tx.mail.forSubject(bookingId));
    expect(rows.map((m) => [m.channel, m.status, m.attempts])).toEqual(
      expect.arrayContaining([
        ['email', 'sent', 1],
        ['sms', 'sent', 1],
      ]),
    );
  });

  test('an SMS refused for now is queued again on the shared backoff; one refused for good is failed and not tried again', async () => {
    const { smsId } = await bookingWithText();
    const gateway: { sent: MailMessage[]; refuse?: SmsRefused } = {
      sent: [],
      refuse: new SmsRefused('gateway busy', false),
    };
    const runner = smsRunner(gateway);
    await runner.tick();
    const retry = await t.server.store.read((tx) => tx.mail.get(smsId));
    expect([retry?.status, retry?.attempts, retry?.last_error, retry?.due_ms]).toEqual([
      'queued',
      1,
      'gateway busy',
      t.clock.now() + notificationRetryDelayMs(1),
    ]);
    // Not due again before its delay.
    await runner.tick();
    expect((await t.server.store.read((tx) => tx.mail.get(smsId)))?.attempts).toBe(1);
    t.clock.advance(notificationRetryDelayMs(1));
    gateway.refuse = new SmsRefused('number cannot receive texts', true);
    await runner.tick();
    const failed = await t.server.store.read((tx) => tx.mail.get(smsId));
    expect([failed?.status, failed?.attempts, failed?.last_error]).toEqual([
      'failed',
      2,
      'number cannot receive texts',
    ]);
    gateway.refuse = undefined;
    t.clock.advance(notificationRetryDelayMs(5));
    await runner.tick();
    expect(gateway.sent).toEqual([]);
  });
});
