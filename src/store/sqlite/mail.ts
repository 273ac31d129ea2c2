/** The mail outbox on SQLite. */
import type Database from 'better-sqlite3';
import { EMAIL_CHANNEL, erasedMailId, erasedMailSubject, type MailRepo } from '../mail-port.js';
import { MAIL_COLUMNS, MAIL_QUEUE, toMailMessage, type MailRow } from '../shared/mail-rows.js';
import { sqliteFinishLeased, sqliteLeaseDue } from './leased-queue.js';

export function sqliteMail(db: Database.Database): MailRepo {
  const q = {
    enqueue: db.prepare(
      `INSERT INTO mail_messages (id, channel, kind, subject_id, recipient, locale, payload, status, attempts, due_ms, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    due: sqliteLeaseDue<MailRow>(db, MAIL_QUEUE),
    finish: sqliteFinishLeased(db, MAIL_QUEUE),
    cancel: db.prepare(
      `UPDATE mail_messages SET status = 'canceled' WHERE subject_id = ? AND kind = ? AND status = 'queued'`,
    ),
    get: db.prepare(`SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE id = ?`),
    forSubject: db.prepare(`SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE subject_id = ? ORDER BY created_ms, id`),
    recent: db.prepare(`SELECT ${MAIL_COLUMNS} FROM mail_messages ORDER BY created_ms DESC, id DESC LIMIT ?`),
    forRecipient: db.prepare(
      `SELECT ${MAIL_COLUMNS} FROM mail_messages WHERE lower(recipient) = lower(?) ORDER BY created_ms, id`,
    ),
    erase: db.prepare(
      `UPDATE mail_messages SET id = ?, subject_id = ?, recipient = 'erased', payload = '{}', last_error = NULL, status = CASE status WHEN 'queued' THEN 'canceled' ELSE status END WHERE id = ?`,
    ),
    scrub: db.prepare(
      `UPDATE mail_messages SET payload = ?, last_error = NULL, status = CASE status WHEN 'queued' THEN 'canceled' ELSE status END WHERE id = ?`,
    ),
  };
  return {
    async enqueue(m) {
      q.enqueue.run(
        m.id,
        m.channel ?? EMAIL_CHANNEL,
        m.kind,
        m.subject_id,
        m.recipient,
        m.locale,
        JSON.stringify(m.payload),
        m.due_ms,
        m.created_ms,
      );
    },
    async claimDue(nowMs, limit, leaseUntilMs, channel = EMAIL_CHANNEL) {
      return q.due(nowMs, limit, leaseUntilMs, channel).map(toMailMessage);
    },
    async finish(id, n) {
      q.finish(id, n);
    },
    async cancelQueued(subjectId, kind) {
      return q.cancel.run(subjectId, kind).changes;
    },
    async get(id) {
      const r = q.get.get(id) as MailRow | undefined;
      return r ? toMailMessage(r) : null;
    },
    async forSubject(subjectId) {
      return (q.forSubject.all(subjectId) as MailRow[]).map(toMailMessage);
    },
    async recent(limit) {
      return (q.recent.all(limit) as MailRow[]).map(toMailMessage);
    },
    async forRecipient(address) {
      return (q.forRecipient.all(address) as MailRow[]).map(toMailMessage);
    },
    async eraseRecipient(address, subjectId) {
      const rows = (q.forRecipient.all(address) as MailRow[]).filter(
        (r) => subjectId === undefined || r.subject_id === subjectId,
      );
      for (const r of rows) q.erase.run(erasedMailId(r.id), erasedMailSubject(r.subject_id, address), r.id);
      return rows.length;
    },
    async scrub(id, payload) {
      q.scrub.run(JSON.stringify(payload), id);
    },
  };
}
