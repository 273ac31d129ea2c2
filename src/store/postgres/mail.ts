/** The mail outbox on PostgreSQL: several processes lease from it without sending a message twice. */
import { EMAIL_CHANNEL, erasedMailId, erasedMailSubject, type MailRepo } from '../mail-port.js';
import { MAIL_COLUMNS, MAIL_QUEUE, toMailMessage, type MailRow } from '../shared/mail-rows.js';
import type { PgSession } from './session.js';
import { pgFinishLeased, pgLeaseDue } from './leased-queue.js';

export function pgMail(s: PgSession): MailRepo {
  return {
    async enqueue(m) {
      // Nobody reads whether it inserted: held, and sent with the transaction's other writes.
      await s.write(
        `INSERT INTO mail_messages (id, channel, kind, subject_id, recipient, locale, payload, status, attempts, due_ms, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
        // Every value a parameter: the messages of one transaction then join one VALUES list.
        [
          m.id,
          m.channel ?? EMAIL_CHANNEL,
          m.kind,
          m.subject_id,
          m.recipient,
          m.locale,
          JSON.stringify(m.payload),
          'queued',
          0,
          m.due_ms,
          m.created_ms,
        ],
      );
    },
    async claimDue(nowMs, limit, leaseUntilMs, channel = EMAIL_CHANNEL) {
      return (await pgLeaseDue<MailRow>(s, MAIL_QUEUE, nowMs, limit, leaseUntilMs, channel)).map(toMailMessage);
    },
    async finish(id, n) {
      await pgFinishLeased(s, MAIL_QUEUE, id, n);
    },
    async cancelQueued(subjectId, kind) {
      const r = await s.query(
        `UPDATE mail_messages SET status = 'canceled' WHERE subject_id = $1 AND kind = $2 AND status = 'queued'`,
        [subjectId, kind],
      );
      return r.rowCount ?? 0;
    },
    async get(id) {
      const r = await s.rows<MailRow>(`SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE id = $1`, [id]);
      return r.length > 0 ? toMailMessage(r[0]) : null;
    },
    async forSubject(subjectId) {
      return (
        await s.rows<MailRow>(
          `SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE subject_id = $1 ORDER BY created_ms, id`,
          [subjectId],
        )
      ).map(toMailMessage);
    },
    async recent(limit) {
      return (
        await s.rows<MailRow>(`SELECT ${MAIL_COLUMNS} FROM mail_messages ORDER BY created_ms DESC, id DESC LIMIT $1`, [
          limit,
        ])
      ).map(toMailMessage);
    },
    async forRecipient(address) {
      return (
        await s.rows<MailRow>(
          `SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE lower(recipient) = lower($1) ORDER BY created_ms, id`,
          [address],
        )
      ).map(toMailMessage);
    },
    async eraseRecipient(address, subjectId) {
      const all = await s.rows<MailRow>(
        `SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE lower(recipient) = lower($1) ORDER BY created_ms, id`,
        [address],
      );
      const rows = all.filter((r) => subjectId === undefined || r.subject_id === subjectId);
      for (const r of rows) {
        await s.query(
          `UPDATE mail_messages SET id = $1, subject_id = $2, recipient = 'erased', payload = '{}', last_error = NULL, status = CASE status WHEN 'queued' THEN 'canceled' ELSE status END WHERE id = $3`,
          [erasedMailId(r.id), erasedMailSubject(r.subject_id, address), r.id],
        );
      }
      return rows.length;
    },
    async scrub(id, payload) {
      await s.query(
        `UPDATE mail_messages SET payload = $1, last_error = NULL, status = CASE status WHEN 'queued' THEN 'canceled' ELSE status END WHERE id = $2`,
        [JSON.stringify(payload), id],
      );
    },
  };
}
