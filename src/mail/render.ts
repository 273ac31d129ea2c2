/**
 * A queued message turned into a mail: subject, plain text and HTML in the reader's language (else
 * the business's), with the business's name, the time in words in its zone, the place with its
 * address, the price and what is due, the terms as they now apply, a link to the booking page, and
 * for a confirmation, a move or a cancellation an iCalendar invitation with the booking page's UID.
 * A business may replace a kind's text with a template of its own (`settings.mail_templates`).
 */
import { createHash } from 'node:crypto';
import { bookingCalendar, formatMoney, type BookingRecord } from '../domain/index.js';
import { bookingPageView, type BookingPageView, type Business, type MailKind } from '../operations/index.js';
import type { MailMessage } from '../store/index.js';
import { html, raw, type Html } from '../web/index.js';
import { wordsFor, type BookingKind, type Facts, type Words } from './templates/index.js';
import type { MailAddress, OutgoingMail } from './port.js';

export interface RenderContext {
  biz: Business;
  from: MailAddress;
  /** Templates of this business by kind (read from the files its business file names). */
  overrides?: ReadonlyMap<string, string>;
}

const INVITE: Partial<Record<MailKind, 'REQUEST' | 'CANCEL'>> = {
  booking_confirmed: 'REQUEST',
  booking_rescheduled: 'REQUEST',
  booking_canceled: 'CANCEL',
};

/** The Message-ID of a queued message: the same for every attempt, so a receiver can drop a duplicate. */
export function messageIdOf(m: MailMessage, host: string): string {
  return `<${createHash('sha256').update(m.id).digest('hex').slice(0, 32)}@${host}>`;
}

/**
 * A buyer's name as the greeting shows it: one line, whatever a record stored before names were
 * checked at input holds (a line break there would start a paragraph of the platform's own).
 */
function oneLineName(name: string | undefined): string | undefined {
  const v = name?.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return v || undefined;
}

function words(lang: string, zone: string) {
  const at = (iso: string) =>
    new Intl.DateTimeFormat(lang, { timeZone: zone, dateStyle: 'full', timeStyle: 'short' }).format(new Date(iso));
  const range = (a: string, b: string) =>
    new Intl.DateTimeFormat(lang, {
      timeZone: zone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    }).formatRange(new Date(a), new Date(b));
  return { at, range };
}

export function renderMail(m: MailMessage, rc: RenderContext): OutgoingMail {
  const biz = rc.biz;
  const publicUrl = new URL(biz.publicUrl);
  const def = biz.def.business;
  const { lang, words: w } = wordsFor(m.locale, def.locale, 'en');
  if (m.kind === 'signup_code' || m.kind === 'password_reset' || m.kind === 'owner_invite')
    return accountMail(m, rc, w, lang, publicUrl);
  const fmt = words(lang, biz.zone);
  const kind = m.kind as BookingKind;
  let facts: Facts;
  let link: { href: string; label: string } | undefined;
  let pay: { href: string; label: string } | undefined;
  let invite: OutgoingMail['invite'];
  let stop: { href: string; label: string } | undefined;
  if (m.kind === 'waitlist_offer') {
    const e = m.payload.entry as {
      service_id: string;
      buyer: { first_name?: string };
      offered_slot?: { start: string; end: string };
      offer_expires_at?: string;
    };
    const service = biz.services.get(e.service_id);
    facts = {
      business: def.name,
      service: service?.name ?? e.service_id,
      when: e.offered_slot ? fmt.range(e.offered_slot.start, e.offered_slot.end) : '',
      deadline: e.offer_expires_at ? fmt.at(e.offer_expires_at) : undefined,
      terms: [],
      name: oneLineName(e.buyer.first_name),
    };
    if (typeof m.payload.offer_path === 'string')
      link = { href: new URL(m.payload.offer_path, publicUrl).toString(), label: w.labels.offer };
  } else {
    const rec = { booking: m.payload.booking, priv: m.payload.priv } as BookingRecord;
    const v = bookingPageView({ biz }, rec);
    const payment = m.payload.payment as
      | { url: string; expires_at: string; amount: number; currency: string }
      | undefined;
    const money = (n: number) => formatMoney(n, v.price.currency, lang);
    facts = {
      business: v.business_name,
      service: v.service_name,
      when: fmt.range(v.start_at, v.end_at),
      where: v.location ? [v.location.name, v.location.address].filter(Boolean).join(', ') : undefined,
      with: v.resources.map((r) => r.name).join(', ') || undefined,
      price: v.price.total > 0 ? money(v.price.total) : undefined,
      // A refund's message tells what came back, not what is owed (the booking page shows the balance).
      due:
        m.kind === 'refund_issued'
          ? undefined
          : payment
            ? money(payment.amount)
            : v.price.balance > 0
              ? money(v.price.balance)
              : undefined,
      paid: v.price.paid > 0 ? money(v.price.paid) : undefined,
      fee: v.price.cancellation_fee ? money(v.price.cancellation_fee) : undefined,
      refund:
        typeof m.payload.refund_amount === 'number'
          ? money(m.payload.refund_amount)
          : v.price.refund
            ? money(v.price.refund)
            : undefined,
      deadline: payment ? fmt.at(payment.expires_at) : v.deadline_at ? fmt.at(v.deadline_at) : undefined,
      terms: m.kind === 'booking_canceled' || m.kind === 'booking_declined' ? [] : v.terms,
      name: oneLineName(rec.booking.buyer?.first_name),
    };
    // The booking's own link (with its credential) when the mail carries one: the page then offers to cancel or move.
    const manage = typeof m.payload.manage_path === 'string' ? m.payload.manage_path : v.booking_path;
    link = { href: new URL(manage, publicUrl).toString(), label: w.labels.booking };
    if (payment && m.kind === 'payment_needed') pay = { href: payment.url, label: w.labels.pay };
    if (m.kind === 'reminder')
      stop = { href: new URL(`${v.booking_path}/reminders`, publicUrl).toString(), label: w.labels.reminders_off };
    const method = INVITE[m.kind as MailKind];
    if (method)
      invite = {
        method,
        content: inviteOf(v, rec, method, rc.from, m.recipient, publicUrl.host),
        filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics',
      };
  }
  const subject = w.subject[kind](facts);
  const override = rc.overrides?.get(m.kind);
  const lead = override ? fill(override, facts, link?.href).split(/\r?\n/) : w.lead[kind](facts);
  return {
    messageId: messageIdOf(m, publicUrl.hostname),
    from: rc.from,
    to: m.recipient,
    subject,
    text: textOf(w, facts, lead, link, pay, stop, contactLine(w, biz)),
    html: htmlOf(w, facts, lead, subject, lang, link, pay, stop, contactLine(w, biz)).toString(),
    invite,
    headers: { 'Auto-Submitted': 'auto-generated', 'X-USP-Message-Kind': m.kind },
  };
}

/** The business's phone and email in the reader's words (every mail ends with them when the business publishes them). */
function contactLine(w: Words, biz: Business): string | undefined {
  const c = biz.def.business.contact;
  return w.labels.contact(c?.phone, c?.email);
}

/** A message about the buyer's account (a sign-up code, a reset link): no booking, no invite. */
function accountMail(m: MailMessage, rc: RenderContext, w: Words, lang: string, publicUrl: URL): OutgoingMail {
  const business = rc.biz.def.business.name;
  const a =
    m.kind === 'signup_code'
      ? w.account.signup(String(m.payload.code))
      : m.kind === 'owner_invite'
        ? w.account.ownerInvite(String(m.payload.url), String(m.payload.hours))
        : w.account.reset(String(m.payload.url), String(m.payload.minutes));
  const contact = contactLine(w, rc.biz);
  const text =
    [
      w.greeting(),
      '',
      ...a.lines,
      ...(a.link ? ['', `${a.linkLabel ?? a.link}: ${a.link}`] : []),
      '',
      '--',
      business,
      ...(contact ? [contact] : []),
      a.footer,
    ].join('\n') + '\n';
  const body = html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${a.subject}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;color:#18181b;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif">
<main style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff"><h1 style="font-size:20px;margin:0 0 16px">${business}</h1>
<p>${w.greeting()}</p>${a.lines.map((l) => html`<p>${l}</p>`)}
${a.link ? html`<p><a href="${a.link}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${a.linkLabel}</a></p>` : raw('')}
${contact ? html`<p style="color:#52525b;font-size:13px;margin-top:24px">${contact}</p>` : raw('')}<p style="color:#52525b;font-size:13px;margin-top:24px">${a.footer}</p></main></body></html>`;
  return {
    messageId: messageIdOf(m, publicUrl.hostname),
    from: rc.from,
    to: m.recipient,
    subject: a.subject,
    text,
    html: body.toString(),
    headers: { 'Auto-Submitted': 'auto-generated', 'X-USP-Message-Kind': m.kind },
  };
}

/** The booking page's calendar entry (same UID, same SEQUENCE rule) as a mailed invitation. */
function inviteOf(
  v: BookingPageView,
  rec: BookingRecord,
  method: 'REQUEST' | 'CANCEL',
  from: MailAddress,
  to: string,
  uidHost: string,
): string {
  return bookingCalendar({
    uid: `${v.booking_id}@${uidHost}`,
    sequence: v.reschedule_count + (method === 'CANCEL' ? 1 : 0),
    canceled: method === 'CANCEL',
    method,
    startMs: Date.parse(v.start_at),
    endMs: Date.parse(v.end_at),
    stampMs: Date.parse(rec.booking.updated_at),
    summary: `${v.service_name} (${v.business_name})`,
    location: v.location ? [v.location.name, v.location.address].filter(Boolean).join(', ') : undefined,
    description: v.terms.join('\n') || undefined,
    organizerName: v.business_name,
    organizerEmail: from.address,
    attendee: {
      email: to,
      name: [rec.booking.buyer?.first_name, rec.booking.buyer?.last_name].filter(Boolean).join(' ') || undefined,
    },
  });
}

/** `{{service}}`-style placeholders of a business's own template, filled with the facts (text only). */
function fill(template: string, f: Facts, link?: string): string {
  const values: Record<string, string | undefined> = { ...f, terms: f.terms.join(' '), link };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_, k: string) => values[k] ?? '');
}

function details(w: Words, f: Facts): Array<[string, string]> {
  const rows: Array<[string, string | undefined]> = [
    [w.labels.when, f.when],
    [w.labels.where, f.where],
    [w.labels.with, f.with],
    [w.labels.price, f.price],
    [w.labels.due, f.due],
  ];
  return rows.filter((r): r is [string, string] => Boolean(r[1]));
}

function textOf(
  w: Words,
  f: Facts,
  lead: string[],
  link?: { href: string; label: string },
  pay?: { href: string; label: string },
  stop?: { href: string; label: string },
  contact?: string,
): string {
  const lines = [w.greeting(f.name), '', ...lead, ''];
  for (const [k, v] of details(w, f)) lines.push(`${k}: ${v}`);
  if (f.terms.length) lines.push('', `${w.labels.terms}:`, ...f.terms.map((t) => `- ${t}`));
  if (pay) lines.push('', `${pay.label}: ${pay.href}`);
  if (link) lines.push('', `${link.label}: ${link.href}`);
  if (stop) lines.push('', `${stop.label}: ${stop.href}`);
  lines.push('', '--', f.business, ...(contact ? [contact] : []), w.labels.footer(f.business));
  return lines.join('\n') + '\n';
}

function htmlOf(
  w: Words,
  f: Facts,
  lead: string[],
  subject: string,
  lang: string,
  link?: { href: string; label: string },
  pay?: { href: string; label: string },
  stop?: { href: string; label: string },
  contact?: string,
): Html {
  const rows = details(w, f);
  const button = (a: { href: string; label: string }) =>
    html`<p><a href="${a.href}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${a.label}</a></p>`;
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;color:#18181b;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif">
<main style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff">
<h1 style="font-size:20px;margin:0 0 16px">${f.business}</h1>
<p>${w.greeting(f.name)}</p>
${lead.map((l) => html`<p>${l}</p>`)}
${rows.length ? html`<table role="presentation" style="border-collapse:collapse;margin:16px 0">${rows.map(([k, v]) => html`<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;vertical-align:top">${k}</th><td style="padding:4px 0">${v}</td></tr>`)}</table>` : raw('')}
${f.terms.length ? html`<h2 style="font-size:16px">${w.labels.terms}</h2><ul>${f.terms.map((t) => html`<li>${t}</li>`)}</ul>` : raw('')}
${pay ? button(pay) : raw('')}
${link ? button(link) : raw('')}
${stop ? html`<p><a href="${stop.href}">${stop.label}</a></p>` : raw('')}
${contact ? html`<p style="margin-top:24px">${contact}</p>` : raw('')}
<p style="color:#52525b;font-size:13px;margin-top:24px">${w.labels.footer(f.business)}</p>
</main></body></html>`;
}
