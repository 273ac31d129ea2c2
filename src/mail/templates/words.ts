/** The shape of a language file: every sentence a message may need, as functions of its facts. */
import type { MailKind } from '../../operations/index.js';

/** What every message is written from, already formatted in the reader's language and the business's zone. */
export interface Facts {
  business: string;
  service: string;
  /** The start (and end) in words, in the business's time zone. */
  when: string;
  where?: string;
  with?: string;
  price?: string;
  due?: string;
  paid?: string;
  fee?: string;
  refund?: string;
  deadline?: string;
  terms: string[];
  name?: string;
}

/** The messages about a booking or a waitlist entry (the account messages have words of their own). */
export type BookingKind = Exclude<MailKind, 'signup_code' | 'password_reset' | 'owner_invite'>;

export interface AccountWords {
  subject: string;
  lines: string[];
  link?: string;
  linkLabel?: string;
  footer: string;
}

export interface Words {
  greeting(name?: string): string;
  subject: Record<BookingKind, (f: Facts) => string>;
  lead: Record<BookingKind, (f: Facts) => string[]>;
  /** Account messages: subject, lines, an optional link and a footer. */
  account: {
    signup(code: string): AccountWords;
    reset(url: string, minutes: string): AccountWords;
    /** The deployment's operator invites the business's owner to make her dashboard account. */
    ownerInvite(url: string, hours: string): AccountWords;
  };
  labels: {
    when: string;
    where: string;
    with: string;
    price: string;
    due: string;
    terms: string;
    booking: string;
    pay: string;
    offer: string;
    reminders_off: string;
    footer(business: string): string;
    /** How to reach the business (its phone and email from the business definition); undefined when it publishes neither. */
    contact(phone?: string, email?: string): string | undefined;
  };
}
