/** Mail outbox rows as both engines read them (BIGINT columns arrive as strings from PostgreSQL). */
import type { MailMessage, MailRepo } from '../mail-port.js';
import type { LeasedQueue } from './leased-queue.js';

export type MailRow = Omit<MailMessage, 'payload' | 'attempts' | 'due_ms' | 'created_ms' | 'sent_ms'> & {
  payload: string;
  attempts: number | string;
  due_ms: number | string;
  created_ms: number | string;
  sent_ms: number | string | null;
};

export const MAIL_COLUMNS =
  'id, channel, kind, subject_id, recipient, locale, payload, status, attempts, due_ms, created_ms, sent_ms, last_error';

/** The notification outbox's queue: queued messages by when they are due, each channel's runner leasing its own. */
export const MAIL_QUEUE: LeasedQueue<Parameters<MailRepo['finish']>[1]> = {
  table: 'mail_messages',
  columns: MAIL_COLUMNS,
  waiting: 'queued',
  dueColumn: 'due_ms',
  partition: 'channel',
  finish: {
    columns: ['status', 'attempts', 'due_ms', 'sent_ms', 'last_error'],
    values: (n) => [n.status, n.attempts, n.due_ms, n.sent_ms, n.last_error],
  },
};

export const toMailMessage = (r: MailRow): MailMessage => ({
  id: r.id,
  channel: r.channel,
  kind: r.kind,
  subject_id: r.subject_id,
  recipient: r.recipient,
  locale: r.locale,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
  status: r.status,
  attempts: Number(r.attempts),
  due_ms: Number(r.due_ms),
  created_ms: Number(r.created_ms),
  sent_ms: r.sent_ms === null ? null : Number(r.sent_ms),
  last_error: r.last_error,
});
