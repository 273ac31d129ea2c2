/**
 * A booking as an iCalendar object (RFC 5545), for the buyer's "add to calendar" link. One VEVENT
 * whose UID never changes for the booking, whose SEQUENCE rises with every reschedule (and once
 * more on cancellation), and which becomes METHOD:CANCEL / STATUS:CANCELLED once the booking is
 * canceled, so a calendar that imported it updates or removes the same event (RFC 5546 3.2).
 * Text is escaped (3.3.11) and content lines are folded at 75 octets (3.1).
 *
 * Every value this server writes passes through one of three functions below: `icalText` for TEXT
 * values, `paramText` for quoted parameter values and `icalValue` for the rest (UIDs, addresses).
 * None lets a line break of any form through, so no text a buyer or a business wrote can end a
 * content line and start a property or a component of its own.
 */
import { isLineBreak, isOtherControl } from './plain-text.js';

export interface CalendarEvent {
  /** Globally unique and stable per booking, e.g. `bkg_123@salon.example`. */
  uid: string;
  sequence: number;
  canceled: boolean;
  startMs: number;
  endMs: number;
  /** DTSTAMP: when this version of the event was written. */
  stampMs: number;
  summary: string;
  location?: string;
  description?: string;
  url?: string;
  organizerName?: string;
  /**
   * The iTIP method (RFC 5546): PUBLISH for the downloadable file (the default), REQUEST for an
   * invitation sent by mail, CANCEL once canceled (also the default then).
   */
  method?: 'PUBLISH' | 'REQUEST' | 'CANCEL';
  /** The organizer's address (mailto:) in a mailed invitation; absent: a URN naming the business. */
  organizerEmail?: string;
  /** The person invited (a mailed REQUEST or CANCEL names its attendee, RFC 5546 3.2.2). */
  attendee?: { email: string; name?: string };
}

/**
 * A TEXT value (RFC 5545 3.3.11): backslash, semicolon and comma escaped, every line-break form
 * (CR LF, LF, a bare CR, vertical tab, form feed, NEL, U+2028, U+2029) written as the escaped `\n`,
 * and every other control character but tab dropped.
 */
export function icalText(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) continue; // CR LF is one break, written at its LF
    if (isLineBreak(c)) out += '\\n';
    else if (c === 0x5c || c === 0x3b || c === 0x2c) out += `\\${s[i]}`;
    else if (!isOtherControl(c)) out += s[i];
  }
  return out;
}

/** A value that is not TEXT (a UID, an address): line breaks and control characters dropped. */
function icalValue(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isLineBreak(c) && !isOtherControl(c)) out += s[i];
  }
  return out;
}

/** A parameter value (3.2), quoted: no DQUOTE and no control character can stand in one, line breaks become spaces. */
function paramText(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isLineBreak(c)) out += c === 0x0d && s.charCodeAt(i + 1) === 0x0a ? '' : ' ';
    else if (c !== 0x22 && !isOtherControl(c)) out += s[i];
  }
  return `"${out}"`;
}

/** 20261204T150000Z */
function utc(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

const encoder = new TextEncoder();

/** Folds a content line so no line exceeds 75 octets, never splitting a UTF-8 character. */
function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const n = encoder.encode(ch).length;
    const limit = out.length === 0 ? 75 : 74; // continuation lines start with one space
    if (octets + n > limit) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += n;
  }
  out.push(current);
  return out.join('\r\n ');
}

export function bookingCalendar(e: CalendarEvent, productId = '-//usp-server//bookings//EN'): string {
  return calendarObject([e], productId, e.method ?? (e.canceled ? 'CANCEL' : 'PUBLISH'));
}

/**
 * Several bookings as one calendar (a subscribed feed); `method` null leaves METHOD out (a stored
 * CalDAV object); `name` is the calendar's name a subscribing client shows (X-WR-CALNAME).
 */
export function calendarObject(
  events: readonly CalendarEvent[],
  productId: string,
  method: string | null,
  name?: string,
): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${productId}`, 'CALSCALE:GREGORIAN'];
  if (name !== undefined) lines.push(`X-WR-CALNAME:${icalText(name)}`);
  if (method) lines.push(`METHOD:${method}`);
  for (const e of events) lines.push(...eventLines(e));
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}

function eventLines(e: CalendarEvent): string[] {
  const lines = [
    'BEGIN:VEVENT',
    `UID:${icalValue(e.uid)}`,
    `DTSTAMP:${utc(e.stampMs)}`,
    `DTSTART:${utc(e.startMs)}`,
    `DTEND:${utc(e.endMs)}`,
    `SEQUENCE:${e.sequence}`,
    `STATUS:${e.canceled ? 'CANCELLED' : 'CONFIRMED'}`,
    `SUMMARY:${icalText(e.summary)}`,
  ];
  if (e.location) lines.push(`LOCATION:${icalText(e.location)}`);
  if (e.description) lines.push(`DESCRIPTION:${icalText(e.description)}`);
  if (e.url) lines.push(`URL:${icalValue(e.url)}`);
  const organizer = e.organizerEmail ? `mailto:${icalValue(e.organizerEmail)}` : 'urn:usp:business';
  if (e.organizerName || e.organizerEmail)
    lines.push(`ORGANIZER${e.organizerName ? `;CN=${paramText(e.organizerName)}` : ''}:${organizer}`);
  if (e.attendee) {
    const cn = e.attendee.name ? `;CN=${paramText(e.attendee.name)}` : '';
    lines.push(
      `ATTENDEE${cn};ROLE=REQ-PARTICIPANT;PARTSTAT=${e.canceled ? 'DECLINED' : 'ACCEPTED'}:mailto:${icalValue(e.attendee.email)}`,
    );
  }
  lines.push('END:VEVENT');
  return lines;
}

/**
 * The UID of a booking's event in a calendar this server writes or publishes (CalDAV pushes, the
 * subscribed feeds): recognisable, so that reading the same calendar back for busy times skips it.
 */
export function bookingEventUid(bookingId: string): string {
  return `${bookingId}.booking@usp-server`;
}

export const isBookingEventUid = (uid: string): boolean => uid.endsWith('.booking@usp-server');
