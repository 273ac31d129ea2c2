/**
 * The crash-and-restart run with paid sessions reported again, repeated: `usp-server serve` on a
 * SQLite file with Stripe (the emulator) and mail through SMTP (the capture). The buyer pays; the
 * confirmation reaches the relay but the process is killed (SIGKILL) before it hears the relay's
 * answer, so the message is still queued; restarted on the same file, the server sends it again
 * (at least once) under the same Message-ID, with links to its own address, and the same paid
 * session reported again under new event ids is applied once: one confirmation, no refund.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { REPO_ROOT, startServeCli, type RunningCli } from '../support/cli.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { waitUntil } from '../support/time.js';

const ADMIN = 'restart-admin-key-0123456789abcdef';
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

const kindOf = (m: ParsedMail) => String(m.headers.get('x-usp-message-kind') ?? '');

/** The shared wait (it throws on timeout), with this file's longer default: children on the real clock take time. */
const until = <T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>) =>
  waitUntil(probe, 20_000);

describe('a crash and restart between reports of a paid Stripe session', () => {
  let dir: string;
  let stripe: EmulatedStripe;
  let sink: SmtpSink;
  let cli: RunningCli | undefined;
  let args: string[];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(cli!.url + path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const start = async () => {
    cli = await startServeCli(args);
    stripe.webhookUrl = `${cli.url}/payments/stripe/webhook`;
  };

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'usp-restart-mail-'));
    stripe = await startStripeEmulator({ now: Date.now });
    sink = await startSmtpSink();
    const config = join(dir, 'business.json');
    writeFileSync(config, readFileSync(join(REPO_ROOT, 'src/server/demo-business.json')));
    args = [
      '--config',
      config,
      '--db',
      join(dir, 'usp.db'),
      '--port',
      '0',
      '--admin-key',
      ADMIN,
      '--reminder-offset',
      '0',
    ];
    args.push(
      '--payments',
      'stripe',
      '--stripe-secret-key',
      stripe.secretKey,
      '--stripe-webhook-secret',
      stripe.webhookSecret,
      '--stripe-api-url',
      stripe.url,
    );
    args.push('--smtp-url', sink.url);
  }, 120_000);
  afterAll(async () => {
    await cli?.stop();
    await stripe?.close();
    await sink?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the buyer gets one confirmation (every copy under one Message-ID, linking to the server), and no refund', async () => {
    await start();
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const q = await call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: date,
      end_date: date,
    });
    const made = await call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    const id = made.body.booking.id;
    await until(() => sink.to(BUYER.email).some((m) => kindOf(m) === 'payment_needed'));
    const session = await until(() => [...stripe.sessions.values()].find((s) => s.client_reference_id === id));

    // The confirmation reaches the relay, which keeps it unanswered; the process dies in that moment.
    sink.hold();
    const paid = stripe.pay(session.id);
    expect(await stripe.deliver(paid)).toBe(200);
    await until(() => sink.to(BUYER.email).some((m) => kindOf(m) === 'booking_confirmed'));
    const first = cli!;
    first.child.kill('SIGKILL');
    await first.stop();
    sink.release();
    // The message is still leased to the dead process: stand in for its 120 s lease running out.
    const db = new Database(join(dir, 'usp.db'));
    expect(
      db
        .prepare(`UPDATE mail_messages SET lease_until_ms = 0 WHERE kind = 'booking_confirmed' AND status = 'queued'`)
        .run().changes,
    ).toBe(1);
    db.close();

    await start();
    // The same paid session, reported again under new event ids after the restart.
    expect(await stripe.deliver({ ...structuredClone(paid), id: 'evt_after_restart_1' })).toBe(200);
    expect(
      await stripe.deliver({
        ...structuredClone(paid),
        id: 'evt_after_restart_2',
        type: 'checkout.session.async_payment_succeeded',
      }),
    ).toBe(200);
    const confirmations = () => sink.to(BUYER.email).filter((m) => kindOf(m) === 'booking_confirmed');
    await until(() => confirmations().length >= 2);
    // Time for the workers to act on anything the reports might have started (a refund, its mail).
    await new Promise((r) => setTimeout(r, 3_000));

    expect((await call('GET', `/bookings/${id}`)).body.booking).toMatchObject({
      status: 'confirmed',
      payment: { status: 'paid' },
    });
    expect(new Set(confirmations().map((m) => m.messageId)).size).toBe(1);
    const origin = new URL(cli!.url).origin;
    // The copy sent after the restart links to where the server now is, not to a default origin.
    expect(confirmations().at(-1)!.text).toContain(`${origin}/booking/${id}`);
    expect(sink.to(BUYER.email).map(kindOf)).not.toContain('refund_issued');
    expect(stripe.refunds).toEqual([]);
  }, 120_000);
});
