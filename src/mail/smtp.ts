/**
 * The SMTP adapter on nodemailer: `smtp://user:pass@host:port` (STARTTLS when offered) or
 * `smtps://` (TLS from the start). The URL's credentials go to nodemailer and nowhere else: the
 * transport describes itself without them, and its errors are reduced to the relay's code and text.
 */
import type { SendMailOptions, Transporter } from 'nodemailer';
import { MailSendError, type MailTransport, type OutgoingMail } from './port.js';

/** The relay's URL without user or password, for logs. */
export function redactSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}`;
  } catch {
    return 'smtp (unparsable URL)';
  }
}

/** Refuse an SMTP URL that cannot work, before the server starts. */
export function checkSmtpUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('--smtp-url must be a URL: smtp://user:pass@host:port or smtps://user:pass@host:port');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
    throw new Error(`--smtp-url must start with smtp:// or smtps:// (got ${u.protocol}//)`);
  if (!u.hostname) throw new Error('--smtp-url names no host');
}

export function smtpTransport(url: string, opts: { tlsRejectUnauthorized?: boolean } = {}): MailTransport {
  checkSmtpUrl(url);
  const u = new URL(url);
  const options = {
    host: u.hostname,
    port: u.port ? Number(u.port) : u.protocol === 'smtps:' ? 465 : 587,
    secure: u.protocol === 'smtps:',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    tls: opts.tlsRejectUnauthorized === false ? { rejectUnauthorized: false } : undefined,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
    logger: false,
  };
  // nodemailer is loaded by the first message, not at start: a server that sends none never loads it.
  let transport: Promise<Transporter> | undefined;
  const transporter = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options)));
  return {
    description: redactSmtpUrl(url),
    async send(m) {
      try {
        await (await transporter()).sendMail(toNodemailer(m));
      } catch (err) {
        const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
        const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
        const what =
          code !== undefined
            ? `${code} ${(e.response ?? '').slice(0, 200)}`
            : `${e.code ?? 'error'}: ${(e.message ?? '').slice(0, 200)}`;
        throw new MailSendError(what, code !== undefined && code >= 500 && code < 600);
      }
    },
    async close() {
      if (transport) (await transport).close();
    },
  };
}

/** Our message as nodemailer composes it (also used by the folder adapter). */
export function toNodemailer(m: OutgoingMail): SendMailOptions {
  return {
    messageId: m.messageId,
    // An address object: nodemailer quotes the name and takes the envelope sender from the address alone.
    from: { name: m.from.name, address: m.from.address },
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    headers: m.headers,
    ...(m.invite
      ? { icalEvent: { method: m.invite.method, content: m.invite.content, filename: m.invite.filename } }
      : {}),
  };
}
