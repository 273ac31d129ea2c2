/**
 * The notification outbox (the mail outbox, grown a channel): one row per message a change means to
 * send a person (a booking's confirmation, a reminder, a waitlist offer, a sign-up code), written in
 * the same transaction as the change and sent after commit by its channel's leased runner (mail:
 * `email`, the only channel so far). The row's id is its unique key (what caused it, the
 * recipient and the kind), so a retried transaction, a replay or a second process adds nothing.
 */
import { createHash, randomUUID } from 'node:crypto';

/** The channel of every message that names none: mail. */
export const EMAIL_CHANNEL = 'email';

export type MailStatus = 'queued' | 'sent' | 'failed' | 'canceled';

export interface MailMessage {
  /** `<cause>|<kind>|<recipient>`: the cause is an event id, or what else made the message once. */
  id: string;
  /** The channel that sends it (`email`; an SMS adapter would send `sms`): its provider's runner leases it. */
  channel: string;
  kind: string;
  /** The booking, waitlist entry or account the message is about (the dashboard lists a booking's). */
  subject_id: string;
  recipient: string;
  /** The buyer's language when known (BCP 47), else null: the business's is used. */
  locale: string | null;
  /** What the template needs, as of the change (never re-read at send time). */
  payload: Record<string, unknown>;
  status: MailStatus;
  attempts: number;
  /** Not sent before this instant (a reminder's time; a retry's). */
  due_ms: number;
  created_ms: number;
  sent_ms: number | null;
  last_error: string | null;
}

export interface MailRepo {
  /**
   * Queue a message (on `email` unless it names its channel); one with the same id already there is
   * left as it is. It answers nothing, so a store may send it with the transaction's other writes.
   */
  enqueue(
    m: Omit<MailMessage, 'status' | 'attempts' | 'sent_ms' | 'last_error' | 'channel'> & { channel?: string },
  ): Promise<void>;
  /** Lease one channel's (default `email`) queued messages that are due and that no other worker holds, until `leaseUntilMs`. */
  claimDue(nowMs: number, limit: number, leaseUntilMs: number, channel?: string): Promise<MailMessage[]>;
  /** Record an attempt's end: sent, failed for good, or queued again at `due_ms` (clears the lease). */
  finish(
    id: string,
    next: Pick<MailMessage, 'status' | 'attempts' | 'due_ms' | 'sent_ms' | 'last_error'>,
  ): Promise<void>;
  /** A subject's queued messages of one kind not yet sent are canceled (a reminder for a moved booking); how many. */
  cancelQueued(subjectId: string, kind: string): Promise<number>;
  get(id: string): Promise<MailMessage | null>;
  /** A subject's messages, oldest first. */
  forSubject(subjectId: string): Promise<MailMessage[]>;
  /** The latest `limit` messages, newest first: the dashboard's list of what was sent, with each one's state. */
  recent(limit: number): Promise<MailMessage[]>;
  /** Every message to one address (any case), oldest first: a buyer's data export. */
  forRecipient(address: string): Promise<MailMessage[]>;
  /**
   * A buyer's erasure: every message to the address loses the address (in its key too) and its
   * payload, and those not yet sent are canceled; with `subjectId`, only the messages about it
   * (retention erases one old booking's people). How many.
   */
  eraseRecipient(address: string, subjectId?: string): Promise<number>;
  /**
   * A buyer's erasure, for a message to someone else that names them (the other person of their
   * booking): the payload is replaced by `payload` (the person erased from it), and the message is
   * canceled if it was not yet sent.
   */
  scrub(id: string, payload: Record<string, unknown>): Promise<void>;
}

/** The subject of a message about an account, which names no address (a hash of it): an erased person's sign-up code keeps none. */
export function accountMailSubject(email: string): string {
  return `account:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 24)}`;
}

/** What an erased message's subject becomes: an account subject that spelled the address (rows queued before it was hashed) loses it. */
export function erasedMailSubject(subjectId: string, address: string): string {
  return subjectId.toLowerCase() === `account:${address.trim().toLowerCase()}` ? 'account:erased' : subjectId;
}

/** The key an erased message keeps: its cause and kind, and no address. */
export function erasedMailId(id: string): string {
  const [cause, kind] = id.split('|');
  return `${cause}|${kind}|erased-${randomUUID()}`;
}
