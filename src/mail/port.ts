/**
 * The mail port: what the mail worker hands to a transport (an SMTP relay, a folder of .eml files)
 * and how a transport says a message cannot be delivered. A permanent refusal (an SMTP 5xx answer)
 * is recorded and not retried; anything else is retried with backoff.
 */

/**
 * A mailbox as an address object: the display name is only ever a name (the transport quotes or
 * encodes it), so nothing in it can become the From address or the envelope sender.
 */
export interface MailAddress {
  name: string;
  address: string;
}

export interface OutgoingMail {
  /** RFC 5322 Message-ID, derived from the message's key: a resend after a crash carries the same one. */
  messageId: string;
  /** The From header and, by its address, the envelope sender. */
  from: MailAddress;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** An iCalendar invitation sent as text/calendar with its iTIP method (RFC 6047). */
  invite?: { method: 'REQUEST' | 'CANCEL'; content: string; filename: string };
  headers?: Record<string, string>;
}

export interface MailTransport {
  /** Where mail goes, safe to log (never a credential): `smtp://relay.example:587`, `dir:/var/mail/usp`. */
  readonly description: string;
  send(m: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

export class MailSendError extends Error {
  override readonly name = 'MailSendError';
  constructor(
    message: string,
    /** True when retrying cannot help (the relay refused with a 5xx code). */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}
