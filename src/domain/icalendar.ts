/**
 * A booking as an iCalendar object (RFC 5545), for the buyer's "add to calendar" link. One VEVENT
 * whose UID never changes for the booking, whose SEQUENCE rises with every reschedule (and once
 * more on cancellation), and which becomes METHOD:CANCEL / STATUS:CANCELLED once the booking is
 * canceled, so a calendar that imported it updates or removes the same event (RFC 5546 3.2).
 * Text is escaped (3.3.11) and content lines are folded at 75 octets (3.1).
 */

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

/** A parameter value, quoted, without what would break it. */
const paramText = (s: string) => `"${s.replace(/["\r\n]/g, '')}"`;

/** 20261204T150000Z */
function utc(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** TEXT value escaping (RFC 5545 3.3.11). */
function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');
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

/** Several bookings as one calendar (a subscribed feed); `method` null leaves METHOD out (a stored CalDAV object). */
export function calendarObject(events: readonly CalendarEvent[], productId: string, method: string | null): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${productId}`, 'CALSCALE:GREGORIAN'];
  if (method) lines.push(`METHOD:${method}`);
  for (const e of events) lines.push(...eventLines(e));
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}

function eventLines(e: CalendarEvent): string[] {
  const lines = [
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    `DTSTAMP:${utc(e.stampMs)}`,
    `DTSTART:${utc(e.startMs)}`,
    `DTEND:${utc(e.endMs)}`,
    `SEQUENCE:${e.sequence}`,
    `STATUS:${e.canceled ? 'CANCELLED' : 'CONFIRMED'}`,
    `SUMMARY:${escapeText(e.summary)}`,
  ];
  if (e.location) lines.push(`LOCATION:${escapeText(e.location)}`);
  if (e.description) lines.push(`DESCRIPTION:${escapeText(e.description)}`);
  if (e.url) lines.push(`URL:${e.url}`);
  const organizer = e.organizerEmail ? `mailto:${e.organizerEmail}` : 'urn:usp:business';
  if (e.organizerName || e.organizerEmail) lines.push(`ORGANIZER${e.organizerName ? `;CN=${paramText(e.organizerName)}` : ''}:${organizer}`);
  if (e.attendee) {
    const cn = e.attendee.name ? `;CN=${paramText(e.attendee.name)}` : '';
    lines.push(`ATTENDEE${cn};ROLE=REQ-PARTICIPANT;PARTSTAT=${e.canceled ? 'DECLINED' : 'ACCEPTED'}:mailto:${e.attendee.email}`);
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
