/** The mail outbox's part of the store contract (run by contract.ts on both engines). */
import { describe, expect, test } from 'vitest';
import type { Tx } from '../../src/store/port.js';
import { TEST_NOW as NOW } from '../support/time.js';

const MIN = 60_000;
type Run = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export function mailContract(write: Run, read: Run): void {
  describe('mail keeps the messages to people (one per key, leased, each sent once)', () => {
    const msg = (id: string, o: { kind?: string; subject?: string; due?: number } = {}) => ({
      id,
      kind: o.kind ?? 'booking_confirmed',
      subject_id: o.subject ?? 'bkg_1',
      recipient: 'ada@example.com',
      locale: null,
      payload: { booking: { id: 'bkg_1', nested: [1] } },
      due_ms: o.due ?? NOW,
      created_ms: NOW,
    });
    const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

    test('a message queued twice under one key is one message; a leased message is not claimed again until its lease lapses', async () => {
      await write((tx) => tx.mail.enqueue(msg('evt_1|booking_confirmed|ada@example.com')));
      await write((tx) =>
        tx.mail.enqueue({ ...msg('evt_1|booking_confirmed|ada@example.com'), payload: { other: true } }),
      );
      const first = await write((tx) => tx.mail.claimDue(NOW, 10, NOW + MIN));
      expect(first.map((m) => [m.id, m.status, m.attempts, m.payload])).toEqual([
        ['evt_1|booking_confirmed|ada@example.com', 'queued', 0, { booking: { id: 'bkg_1', nested: [1] } }],
      ]);
      expect(await write((tx) => tx.mail.claimDue(NOW + 1000, 10, NOW + 2 * MIN))).toEqual([]);
      expect(ids(await write((tx) => tx.mail.claimDue(NOW + MIN, 10, NOW + 3 * MIN)))).toEqual([
        'evt_1|booking_confirmed|ada@example.com',
      ]);
    });

    test('the outbox is split by channel: a message names its channel (email unless it says), and each channel leases only its own', async () => {
      await write(async (tx) => {
        await tx.mail.enqueue(msg('ch_mail', { subject: 'bkg_ch' }));
        await tx.mail.enqueue({ ...msg('ch_sms', { subject: 'bkg_ch' }), channel: 'sms', recipient: '+15555550100' });
      });
      const sms = await write((tx) => tx.mail.claimDue(NOW, 10, NOW + MIN, 'sms'));
      expect(sms.map((m) => [m.id, m.channel, m.recipient])).toEqual([['ch_sms', 'sms', '+15555550100']]);
      const email = await write((tx) => tx.mail.claimDue(NOW, 10, NOW + MIN, 'email'));
      expect(email.map((m) => [m.id, m.channel])).toEqual([['ch_mail', 'email']]);
      // Both leased now: neither channel gets the other's, nor its own again before the lease lapses.
      expect(await write((tx) => tx.mail.claimDue(NOW + 1000, 10, NOW + MIN, 'sms'))).toEqual([]);
      const all = await read((tx) => tx.mail.forSubject('bkg_ch'));
      expect(all.map((m) => [m.id, m.channel])).toEqual([
        ['ch_mail', 'email'],
        ['ch_sms', 'sms'],
      ]);
    });

    test("a message due later (a reminder) is not claimed before its time, and canceling a subject's queued kind leaves sent ones alone", async () => {
      await write(async (tx) => {
        await tx.mail.enqueue(msg('r1', { kind: 'reminder', due: NOW + 10 * MIN, subject: 'bkg_r' }));
        await tx.mail.enqueue(msg('c1', { subject: 'bkg_r' }));
      });
      expect(ids(await write((tx) => tx.mail.claimDue(NOW, 10, NOW + MIN)))).toContain('c1');
      await write((tx) =>
        tx.mail.finish('c1', { status: 'sent', attempts: 1, due_ms: NOW, sent_ms: NOW + 5, last_error: null }),
      );
      expect(await write((tx) => tx.mail.cancelQueued('bkg_r', 'booking_confirmed'))).toBe(0);
      expect(await write((tx) => tx.mail.cancelQueued('bkg_r', 'reminder'))).toBe(1);
      expect(ids(await write((tx) => tx.mail.claimDue(NOW + 20 * MIN, 10, NOW + 30 * MIN)))).not.toContain('r1');
      const all = await read((tx) => tx.mail.forSubject('bkg_r'));
      expect(all.map((m) => [m.id, m.status, m.sent_ms])).toEqual([
        ['c1', 'sent', NOW + 5],
        ['r1', 'canceled', null],
      ]);
    });

    test('finish() records a retry (due again later, with its error) and a permanent failure (never due again)', async () => {
      await write(async (tx) => {
        await tx.mail.enqueue(msg('a'));
        await tx.mail.enqueue(msg('b', { subject: 'bkg_2' }));
        await tx.mail.claimDue(NOW, 10, NOW + MIN);
        await tx.mail.finish('a', {
          status: 'queued',
          attempts: 1,
          due_ms: NOW + 5000,
          sent_ms: null,
          last_error: 'connection refused',
        });
        await tx.mail.finish('b', {
          status: 'failed',
          attempts: 1,
          due_ms: NOW,
          sent_ms: null,
          last_error: '550 mailbox unavailable',
        });
      });
      expect(await write((tx) => tx.mail.claimDue(NOW + 4999, 10, NOW + MIN))).toEqual([]);
      expect(ids(await write((tx) => tx.mail.claimDue(NOW + 5000, 10, NOW + MIN)))).toEqual(['a']);
      const b = await read((tx) => tx.mail.get('b'));
      expect([b?.status, b?.last_error]).toEqual(['failed', '550 mailbox unavailable']);
      expect(await read((tx) => tx.mail.get('nope'))).toBeNull();
    });

    test('recent() lists the latest messages newest first, whatever their state, up to the limit', async () => {
      const later = (id: string, minutes: number) => ({
        ...msg(id, { subject: 'bkg_recent' }),
        created_ms: NOW + 1000 * MIN + minutes * MIN,
      });
      await write(async (tx) => {
        await tx.mail.enqueue(later('n1', 1));
        await tx.mail.enqueue(later('n2', 2));
        await tx.mail.enqueue(later('n3', 3));
      });
      await write((tx) =>
        tx.mail.finish('n2', {
          status: 'failed',
          attempts: 1,
          due_ms: NOW,
          sent_ms: null,
          last_error: '550 no such user',
        }),
      );
      const recent = await read((tx) => tx.mail.recent(2));
      expect(recent.map((m) => [m.id, m.status, m.last_error])).toEqual([
        ['n3', 'queued', null],
        ['n2', 'failed', '550 no such user'],
      ]);
    });

    test('a message queued in a transaction that rolls back is not queued', async () => {
      await expect(
        write(async (tx) => {
          await tx.mail.enqueue(msg('rb'));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await read((tx) => tx.mail.get('rb'))).toBeNull();
    });

    test("a buyer's erasure takes their address out of every message, its key included, and cancels what was not sent", async () => {
      await write(async (tx) => {
        await tx.mail.enqueue({
          ...msg('e1|booking_confirmed|Eve@Example.com', { subject: 'bkg_e' }),
          recipient: 'Eve@Example.com',
          payload: { name: 'Eve' },
        });
        await tx.mail.enqueue({
          ...msg('e2|reminder|Eve@Example.com', { subject: 'bkg_e', kind: 'reminder', due: NOW + 60 * MIN }),
          recipient: 'Eve@Example.com',
          payload: { name: 'Eve' },
        });
      });
      await write((tx) =>
        tx.mail.finish('e1|booking_confirmed|Eve@Example.com', {
          status: 'sent',
          attempts: 1,
          due_ms: NOW,
          sent_ms: NOW,
          last_error: null,
        }),
      );
      expect((await read((tx) => tx.mail.forRecipient('eve@example.com'))).map((m) => m.kind)).toEqual([
        'booking_confirmed',
        'reminder',
      ]);
      expect(await write((tx) => tx.mail.eraseRecipient('eve@example.com'))).toBe(2);
      expect(await read((tx) => tx.mail.forRecipient('eve@example.com'))).toEqual([]);
      const left = await read((tx) => tx.mail.forSubject('bkg_e'));
      expect(left.map((m) => [m.kind, m.status, m.recipient, m.payload, m.id.includes('Eve')])).toEqual([
        ['booking_confirmed', 'sent', 'erased', {}, false],
        ['reminder', 'canceled', 'erased', {}, false],
      ]);
    });
  });
}
