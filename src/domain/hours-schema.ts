/**
 * The business file's opening hours: local intervals within a day, the weekly hours (of a resource,
 * or the window of a service), dated exceptions and time off. Part of the schema of business.ts.
 */
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { PathSegment } from './business-rules.js';
import { doc, minutesOf, freeText, openingTime, closingTime, localDate, instant } from './business-fields.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const LocalIntervalSchema = doc(
  z
    .strictObject({
      opens: doc(openingTime(), 'Local opening time "HH:MM".'),
      closes: doc(closingTime(), 'Local closing time "HH:MM"; "24:00" means midnight at the end of the day.'),
    })
    .superRefine((v, ctx) => {
      if (minutesOf(v.closes) <= minutesOf(v.opens)) {
        ctx.addIssue({ code: 'custom', path: ['closes'], message: `must be later than opens (${v.opens})` });
      }
    }),
  { id: 'LocalInterval', description: 'A local time interval within one day; closes must be later than opens.' },
);

/** Issues for overlapping intervals in one day's list (the list is otherwise valid). */
function checkNoOverlap(
  intervals: Array<{ opens: string; closes: string }>,
  ctx: z.RefinementCtx,
  path: PathSegment[],
): void {
  const order = intervals
    .map((iv, i) => ({ i, from: minutesOf(iv.opens), to: minutesOf(iv.closes) }))
    .sort((a, b) => a.from - b.from);
  for (let k = 1; k < order.length; k++) {
    if (order[k].from < order[k - 1].to) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, order[k].i],
        message: `overlaps the interval at index ${order[k - 1].i}`,
      });
    }
  }
}

const dayIntervals = (day: string) =>
  doc(z.array(LocalIntervalSchema), `Intervals on ${day}; omit the day or use [] when closed.`);

export const WeeklyHoursSchema = doc(
  z
    .strictObject(
      Object.fromEntries(WEEKDAYS.map((d) => [d, dayIntervals(d).optional()])) as Record<
        (typeof WEEKDAYS)[number],
        z.ZodOptional<z.ZodArray<typeof LocalIntervalSchema>>
      >,
    )
    .superRefine((week, ctx) => {
      for (const day of WEEKDAYS) {
        const list = week[day];
        if (list) checkNoOverlap(list, ctx, [day]);
      }
    }),
  {
    id: 'WeeklyHours',
    description:
      'Weekly recurring local hours, by weekday; a missing day is closed. On a resource: its working hours. ' +
      'On a service: the window in which bookings must start and end (e.g. a class timetable).',
  },
);

export const DatedExceptionSchema = doc(
  z
    .strictObject({
      date: doc(localDate(), 'Local date YYYY-MM-DD.'),
      hours: doc(
        z.array(LocalIntervalSchema),
        'Hours on that date, replacing the weekly hours; [] closes the whole day.',
      ),
      reason: freeText().optional(),
    })
    .superRefine((v, ctx) => checkNoOverlap(v.hours, ctx, ['hours'])),
  { id: 'DatedException', description: 'A dated override of the weekly schedule.' },
);

export const TimeOffSchema = doc(
  z
    .strictObject({
      start: instant('First instant of the absence'),
      end: instant('End of the absence (exclusive)'),
      reason: freeText().optional(),
    })
    .superRefine((v, ctx) => {
      const start = DateTime.fromISO(v.start, { setZone: true });
      const end = DateTime.fromISO(v.end, { setZone: true });
      if (end.toMillis() <= start.toMillis())
        ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be later than start' });
    }),
  { id: 'TimeOff', description: 'An absence between two instants.' },
);

/** A local opening interval on one day, "HH:MM" to "HH:MM" (closes > opens; "24:00" allowed as a close). */
export type LocalInterval = z.output<typeof LocalIntervalSchema>;
export type WeeklyHours = z.output<typeof WeeklyHoursSchema>;
/** A dated override of the weekly hours: `hours: []` closes the whole day. */
export type DatedException = z.output<typeof DatedExceptionSchema>;
/** An absence: the resource is unavailable between two instants (RFC 3339 with offset). */
export type TimeOff = z.output<typeof TimeOffSchema>;
