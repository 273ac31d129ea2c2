/** The booking as an iCalendar file, reached by the booking's own link like its page. */
import { z } from 'zod';
import { bookingCalendar } from '../../domain/index.js';
import { ProtocolError } from '../core/errors.js';
import { defineOperation, ok } from '../core/define.js';
import { bookingPageView, loadBookingByLink } from './views.js';
import { id } from '../schemas.js';

export const bookingCalendarFile = defineOperation({
  name: 'booking_calendar',
  rest: { method: 'GET', path: '/booking/{booking_id}/calendar.ics', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  page: 'calendar_file',
  summary:
    'The booking as an iCalendar file (RFC 5545): stable UID, SEQUENCE raised per reschedule, METHOD:CANCEL after a cancel.',
  input: z.object({ booking_id: id('The booking to add to a calendar.') }),
  async handle(inp, ctx) {
    const rec = await loadBookingByLink(ctx, inp.booking_id);
    const v = bookingPageView(ctx, rec);
    if (!v.calendar_path) {
      throw new ProtocolError(
        'booking_state_conflict',
        'The booking is not confirmed yet, so there is no calendar entry for it.',
        { detailCode: 'not_confirmed' },
      );
    }
    const canceled = v.status === 'canceled';
    const publicUrl = new URL(ctx.biz.publicUrl);
    const where = v.location ? [v.location.name, v.location.address].filter(Boolean).join(', ') : undefined;
    const withWhom = v.resources.map((r) => r.name).join(', ');
    const ics = bookingCalendar({
      uid: `${v.booking_id}@${publicUrl.host}`,
      // RFC 5546: every revision the attendee must apply raises SEQUENCE; a cancel is one more.
      sequence: v.reschedule_count + (canceled ? 1 : 0),
      canceled,
      startMs: Date.parse(v.start_at),
      endMs: Date.parse(v.end_at),
      stampMs: Date.parse(rec.booking.updated_at),
      summary: `${v.service_name} (${v.business_name})`,
      location: where,
      description: [withWhom && `With ${withWhom}.`, ...v.terms].filter(Boolean).join('\n'),
      url: new URL(v.booking_path, publicUrl).toString(),
      organizerName: v.business_name,
    });
    return ok({ calendar: ics, filename: `${v.booking_id}.ics` });
  },
});
