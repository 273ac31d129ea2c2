/**
 * The business as the domain sees it: what the business file describes, after validation. The shape
 * is written once, as the zod schema below (shapes, single values and the per-object refinements,
 * with the protocol's rules from business-rules.ts); the types the rest of the code uses are
 * inferred from it, and the server emits it as the business file's JSON Schema.
 * Times of day are local to the business time zone ("HH:MM", 24 h); instants are RFC 3339
 * strings or epoch milliseconds (UTC). Durations are ISO 8601 strings (e.g. "PT30M", "P30D").
 */
import { CalendarBuyerDataSchema, CalendarSourceSchema } from './calendar-config.js';
import { MailTemplatesSchema } from './mail-templates.js';
import { checkPaymentWindow } from './payment-window.js';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { RESOURCE_TYPES, serviceRules, type PathSegment } from './business-rules.js';
import {
  doc,
  HANDLE_RE,
  SERVICE_TYPE_RE,
  SHA256_HEX_RE,
  durationMillis,
  minutesOf,
  isHttpUrl,
  idString,
  nameText,
  freeText,
  LONG_TEXT_MAX,
  isoDuration,
  openingTime,
  closingTime,
  localDate,
  instant,
  currencyCode,
  timeZone,
  httpUrl,
  minorUnits,
  DepositSchema,
} from './business-fields.js';

import { CategorySchema, DescriptionSchema, LinkSchema, LocalizedSchema, MediaSchema, RatingSchema } from './service-presentation.js';

export { businessDocs, type SchemaDoc } from './business-fields.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

// ---------------------------------------------------------------------------------------------
// Opening hours

const LocalIntervalSchema = doc(
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
function checkNoOverlap(intervals: Array<{ opens: string; closes: string }>, ctx: z.RefinementCtx, path: PathSegment[]): void {
  const order = intervals.map((iv, i) => ({ i, from: minutesOf(iv.opens), to: minutesOf(iv.closes) })).sort((a, b) => a.from - b.from);
  for (let k = 1; k < order.length; k++) {
    if (order[k].from < order[k - 1].to) {
      ctx.addIssue({ code: 'custom', path: [...path, order[k].i], message: `overlaps the interval at index ${order[k - 1].i}` });
    }
  }
}

const dayIntervals = (day: string) => doc(z.array(LocalIntervalSchema), `Intervals on ${day}; omit the day or use [] when closed.`);

const WeeklyHoursSchema = doc(
  z
    .strictObject(
      Object.fromEntries(WEEKDAYS.map((d) => [d, dayIntervals(d).optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<z.ZodArray<typeof LocalIntervalSchema>>>,
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
      'Weekly recurring local hours, by weekday; a missing day is closed. On a resource: its working hours. On a service: the window in which bookings must start and end (e.g. a class timetable).',
  },
);

const DatedExceptionSchema = doc(
  z
    .strictObject({
      date: doc(localDate(), 'Local date YYYY-MM-DD.'),
      hours: doc(z.array(LocalIntervalSchema), 'Hours on that date, replacing the weekly hours; [] closes the whole day.'),
      reason: freeText().optional(),
    })
    .superRefine((v, ctx) => checkNoOverlap(v.hours, ctx, ['hours'])),
  { id: 'DatedException', description: 'A dated override of the weekly schedule.' },
);

const TimeOffSchema = doc(
  z
    .strictObject({
      start: instant('First instant of the absence'),
      end: instant('End of the absence (exclusive)'),
      reason: freeText().optional(),
    })
    .superRefine((v, ctx) => {
      const start = DateTime.fromISO(v.start, { setZone: true });
      const end = DateTime.fromISO(v.end, { setZone: true });
      if (end.toMillis() <= start.toMillis()) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be later than start' });
    }),
  { id: 'TimeOff', description: 'An absence between two instants.' },
);

// ---------------------------------------------------------------------------------------------
// Locations and resources

const LocationSchema = doc(
  z.strictObject({
    id: doc(idString(), 'Location id, unique among the business locations.'),
    name: nameText(),
    address: freeText().optional(),
    coordinates: z
      .strictObject({
        lat: z.number().min(-90).max(90),
        lng: z.number().min(-180).max(180),
      })
      .optional(),
  }),
  { id: 'Location', description: 'A place where the business delivers services.' },
);

const resourceType = () => z.enum(RESOURCE_TYPES);

const ResourceSchema = doc(
  z
    .strictObject({
      id: doc(idString(), 'Resource id, unique among the resources.'),
      type: doc(resourceType(), 'What kind of resource this is.'),
      name: nameText(),
      location_id: doc(idString(), 'Id of the business location the resource belongs to.').optional(),
      schedule: WeeklyHoursSchema,
      exceptions: z.array(DatedExceptionSchema).optional(),
      time_off: z.array(TimeOffSchema).optional(),
      calendars: doc(
        z.array(CalendarSourceSchema),
        'Calendars the resource is busy in (read in the background; a CalDAV one with write: true also receives its bookings).',
      ).optional(),
    })
    .superRefine((r, ctx) => {
      const seen = new Map<string, number>();
      r.exceptions?.forEach((ex, i) => {
        const first = seen.get(ex.date);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['exceptions', i, 'date'], message: `duplicate date (also at exceptions[${first}])` });
        else seen.set(ex.date, i);
      });
    }),
  { id: 'Resource', description: 'A staff member, room, piece of equipment or other resource that services need.' },
);

// ---------------------------------------------------------------------------------------------
// Services

export const DurationSchema = doc(
  z
    .strictObject({
      fixed: isoDuration('Exact length of the service', true).optional(),
      range: z
        .strictObject({
          min: isoDuration('Shortest bookable length', true),
          max: isoDuration('Longest bookable length', true),
          step: isoDuration('Increment between bookable lengths', true).optional(),
        })
        .superRefine((r, ctx) => {
          if (durationMillis(r.max) < durationMillis(r.min)) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be shorter than min' });
        })
        .optional(),
      undetermined: doc(z.literal(true), 'The service has no meaningful length to show.').optional(),
      buffer_before: isoDuration('Blocked preparation time before the service').optional(),
      buffer_after: isoDuration('Blocked clean-up time after the service').optional(),
    })
    .superRefine((d, ctx) => {
      const present = (['fixed', 'range', 'undetermined'] as const).filter((k) => d[k] !== undefined);
      if (present.length === 0) {
        ctx.addIssue({ code: 'custom', path: [], message: 'needs exactly one of fixed, range or undetermined (USP §3.11)' });
      } else if (present.length > 1) {
        ctx.addIssue({ code: 'custom', path: [present[1]], message: `cannot be combined with ${present[0]}: exactly one of fixed, range or undetermined (USP §3.11)` });
      }
    }),
  { id: 'Duration', description: 'How long the service takes: exactly one of fixed, range or undetermined, plus optional buffers.' },
);

const PRICING_MODELS = ['fixed', 'hourly', 'per_person', 'variable', 'free'] as const;

const PricingSchema = doc(
  z.strictObject({
    model: doc(z.enum(PRICING_MODELS), 'Pricing model.'),
    amount: minorUnits('Price').optional(),
    currency: currencyCode('ISO 4217 currency code; must equal the business currency.'),
    price_range: z
      .strictObject({ min: minorUnits('Lowest price'), max: minorUnits('Highest price') })
      .superRefine((r, ctx) => {
        if (r.max < r.min) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
      })
      .optional(),
    deposit: DepositSchema.optional(),
  }),
  { id: 'Pricing', description: 'How the service is priced (amounts in minor currency units).' },
);

const ChannelSchema = doc(
  z.strictObject({
    type: z.enum(['at_business_location', 'at_buyer_location', 'virtual', 'phone', 'hybrid']),
    virtual_provider: freeText(200).optional(),
    instructions: freeText().optional(),
    service_area: doc(freeText(), 'Free-text description of the area served (buyer-location services).').optional(),
  }),
  { id: 'Channel', description: 'Where or how the service is delivered.' },
);

const PoliciesSchema = doc(
  z.strictObject({
    cancellation: z
      .strictObject({
        allowed: z.boolean(),
        free_cancellation_until: isoDuration('Free cancellation up to this long before the start').optional(),
        late_cancellation_fee: minorUnits('Fixed fee for a cancellation after the free window').optional(),
        late_cancellation_fee_percentage: doc(z.number().int().min(0).max(100), 'Fee for a cancellation after the free window, as a percentage of the price').optional(),
        no_cancellation_after: isoDuration('No cancellation within this long before the start').optional(),
      })
      .superRefine((c, ctx) => {
        // Spec-next 3.9: at most one of the two; a percentage is never written as a fixed fee.
        if (c.late_cancellation_fee !== undefined && c.late_cancellation_fee_percentage !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['late_cancellation_fee_percentage'], message: 'give late_cancellation_fee or late_cancellation_fee_percentage, not both' });
        }
      }),
    rescheduling: z.strictObject({
      allowed: z.boolean(),
      free_reschedule_until: isoDuration('Free rescheduling up to this long before the start').optional(),
      max_reschedules: z.number().int().nonnegative().optional(),
      fee: minorUnits('Fee for rescheduling after the free window').optional(),
    }),
    no_show: z
      .strictObject({
        fee: minorUnits('No-show fee').optional(),
        fee_percentage: z.number().int().min(0).max(100).optional(),
        grace_period: isoDuration('Lateness tolerated before a no-show').optional(),
      })
      .optional(),
    // Spec-next 3.9: each member optional; a business states the limits it enforces and omits the
    // rest (an omitted member is no limit of ours, and is published as omitted, never as a default).
    booking_window: z
      .strictObject({
        min_advance: isoDuration('Earliest a slot can be booked before it starts').optional(),
        max_advance: isoDuration('Furthest ahead a slot can be booked', true).optional(),
        slot_interval: isoDuration('Spacing between slot starts', true).optional(),
      })
      .superRefine((w, ctx) => {
        if (w.max_advance && w.min_advance && durationMillis(w.max_advance) < durationMillis(w.min_advance)) {
          ctx.addIssue({ code: 'custom', path: ['max_advance'], message: 'must not be shorter than min_advance' });
        }
      })
      .optional(),
    confirmation_mode: z.enum(['auto', 'manual']),
    requires_payment: z.boolean(),
    payment_timing: z.enum(['at_booking', 'at_service', 'deposit_required']).optional(),
  }),
  { id: 'ServicePolicies', description: 'Cancellation, rescheduling, no-show, booking window and payment policies.' },
);

const CapacitySchema = doc(
  z
    .strictObject({
      min: doc(z.number().int().min(1), 'Smallest party size accepted.').optional(),
      max: doc(z.number().int().min(1), 'Spots per slot.'),
      waitlist: doc(z.boolean(), 'Whether a full slot can be waitlisted.').optional(),
    })
    .superRefine((c, ctx) => {
      if (c.min !== undefined && c.min > c.max) ctx.addIssue({ code: 'custom', path: ['min'], message: `must not exceed max (${c.max})` });
    }),
  { id: 'Capacity', description: 'Participants per slot; required for group and reservation services.' },
);

const RequirementSchema = doc(
  z
    .strictObject({
      type: doc(resourceType(), 'Kind of resource required.'),
      name: doc(nameText(), 'Label shown to the buyer, e.g. "Stylist".').optional(),
      selectable: doc(z.boolean(), 'Whether the buyer may choose which resource.').optional(),
      resource_ids: doc(z.array(idString()).min(1, 'must list at least one resource'), 'Ids of the resources (of `type`) that can fill this requirement.'),
    })
    .superRefine((r, ctx) => {
      r.resource_ids.forEach((id, i) => {
        const first = r.resource_ids.indexOf(id);
        if (first !== i) ctx.addIssue({ code: 'custom', path: ['resource_ids', i], message: `duplicate resource id "${id}"` });
      });
    }),
  { id: 'ResourceRequirement', description: 'One resource of a type, chosen among resource_ids, is needed for each booking.' },
);

const ServiceObject = z.strictObject({
  id: doc(idString(), 'Service id, unique among the services.'),
  name: nameText(),
  type: doc(
    z
      .string()
      .max(200, 'must be at most 200 characters')
      .regex(SERVICE_TYPE_RE, 'must be appointment, group, reservation, rental, field_service or a reverse-domain vertical such as "com.example.lessons"'),
    'Service vertical.',
  ),
  status: z.enum(['active', 'suspended', 'archived']).optional(),
  description: DescriptionSchema.optional(),
  categories: z.array(CategorySchema).optional(),
  duration: DurationSchema,
  pricing: PricingSchema,
  channel: ChannelSchema,
  policies: PoliciesSchema,
  capacity: CapacitySchema.optional(),
  provider: z.strictObject({ name: nameText(), url: httpUrl('Business website.').optional(), links: z.array(LinkSchema).optional() }).optional(),
  media: z.array(MediaSchema).optional(),
  rating: RatingSchema.optional(),
  handle: doc(z.string().max(200, 'must be at most 200 characters').regex(HANDLE_RE, 'must be a lowercase slug such as "womens-haircut"'), 'URL-friendly slug.').optional(),
  url: httpUrl('Canonical page of the service.').optional(),
  tags: z.array(nameText()).optional(),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => JSON.stringify(m).length <= LONG_TEXT_MAX, `must be at most ${LONG_TEXT_MAX} characters as JSON`)
    .optional(),
  links: z.array(LinkSchema).optional(),
  localized: LocalizedSchema.optional(),
  requirements: doc(z.array(RequirementSchema), 'Resources needed to deliver the service; [] means the service is its own resource (then `hours` is required).'),
  location_ids: doc(z.array(idString()), 'Ids of the business locations where the service is offered.').optional(),
  hours: WeeklyHoursSchema.optional(),
});

export const ServiceSchema = doc(
  ServiceObject.superRefine((s, ctx) => serviceRules(s, (path, message) => ctx.addIssue({ code: 'custom', path, message }))),
  {
    id: 'Service',
    description:
      'A bookable service: the published USP Service fields (without business_id, availability_hint, resources and locations, which the server derives) plus how it is delivered.',
  },
);

// ---------------------------------------------------------------------------------------------
// Settings and the whole file

/** What each setting is when the file omits it (DEFAULT_SETTINGS below). */
const d = {
  hold_ttl_seconds: 600,
  payment_ttl_seconds: 86400,
  payment_due_before_start_seconds: 3600,
  payment_min_window_seconds: 1800,
  manual_confirmation_ttl_seconds: 86400,
  waitlist_offer_ttl_seconds: 900,
  max_query_days: 31,
  max_active_holds_per_buyer: 3,
  max_waitlist_entries: 100,
  reminder_offset_seconds: 86400,
  mail_reminders: true,
  calendar_feed_buyer_data: 'name' as const,
  platform_payments: false,
};

const SettingsSchema = doc(
  z
    .strictObject({
      hold_ttl_seconds: doc(z.number().int().positive(), 'Hold time-to-live in seconds.').default(d.hold_ttl_seconds),
      payment_ttl_seconds: doc(z.number().int().positive(), 'Longest a payment link stays open after it is issued, in seconds.').default(d.payment_ttl_seconds),
      payment_due_before_start_seconds: doc(z.number().int().min(0), 'Payment links close this long before the start if sooner (seconds).').default(
        d.payment_due_before_start_seconds,
      ),
      payment_min_window_seconds: doc(z.number().int().positive(), 'Shortest a payment link stays open (never past the start), seconds.').default(d.payment_min_window_seconds),
      manual_confirmation_ttl_seconds: doc(z.number().int().positive(), 'How long a manual-confirmation booking waits for the business, in seconds.').default(
        d.manual_confirmation_ttl_seconds,
      ),
      waitlist_offer_ttl_seconds: doc(z.number().int().positive(), 'How long a waitlist offer can be accepted, in seconds.').default(d.waitlist_offer_ttl_seconds),
      max_query_days: doc(z.number().int().positive(), 'Longest availability query range, in days.').default(d.max_query_days),
      max_active_holds_per_buyer: doc(z.number().int().positive(), 'Concurrent active holds per platform and buyer for one service.').default(d.max_active_holds_per_buyer),
      max_waitlist_entries: doc(z.number().int().positive(), "Most entries on one service's waitlist.").default(d.max_waitlist_entries),
      reminder_offset_seconds: doc(z.number().int().min(0), 'booking.reminder goes out this long before the start; 0 turns reminders off.').default(d.reminder_offset_seconds),
      mail_reminders: doc(z.boolean(), 'False: buyers get no reminder mail (confirmations, changes and payment requests always go).').default(d.mail_reminders),
      calendar_feed_buyer_data: CalendarBuyerDataSchema,
      mail_templates: MailTemplatesSchema,
      public_url: httpUrl('Public origin of the server (absolute http(s) URL); --public-url overrides it. Absent: the address the server listens on.').optional(),
      checkout_url_template: doc(
        z
          .string()
          .max(2000, 'must be at most 2000 characters')
          .refine((v) => isHttpUrl(v.replaceAll('{booking_id}', 'b').replaceAll('{action_id}', 'a')), 'must be an absolute http(s) URL (placeholders {booking_id}, {action_id})'),
        'Checkout page template; {booking_id} and {action_id} are replaced.',
      ).optional(),
      platform_payments: doc(
        z.boolean(),
        "True: platforms may charge the buyer themselves and report it with confirm-payment (the profile's checkout_systems then lists embedded). False: only the business's own checkout completes a payment.",
      ).default(d.platform_payments),
    })
    .superRefine(checkPaymentWindow)
    .prefault({}),
  { id: 'Settings', description: 'Knobs of the running server; every member is optional and has a default.' },
);

const BusinessSchema = doc(
  z.strictObject({
    id: doc(idString(), 'Business id.'),
    name: nameText(),
    timezone: timeZone(),
    currency: currencyCode('Operating currency (ISO 4217); every service is priced in it.'),
    locale: doc(
      z
        .string()
        .max(35)
        .refine((v) => {
          try {
            return Intl.getCanonicalLocales(v).length === 1;
          } catch {
            return false;
          }
        }, 'must be a BCP 47 language tag'),
      'Language of the buyer pages when the browser names none we can use (BCP 47, e.g. "en-US"); default "en-US".',
    ).optional(),
    locations: doc(z.array(LocationSchema), 'Places of business; [] for a business without premises.'),
    contact: doc(
      z.strictObject({
        phone: doc(z.string().min(3).max(40), 'A phone number people can call about a booking, as it is dialled (e.g. "+1 212 555 0147").').optional(),
        email: doc(z.email().max(254), 'An address people can write to about a booking.').optional(),
      }),
      "How a person reaches the business about a booking: said by the assistants' texts when they cannot help further.",
    ).optional(),
  }),
  { id: 'Business', description: 'Identity, time zone, currency and locations of the business.' },
);

/** The business file as a whole: the one written shape of a business (the types below are inferred from it). */
export const BusinessFileSchema = z.strictObject({
  $schema: doc(z.string().max(2000), 'Reference to this JSON Schema, for editors; ignored by the server.').optional(),
  business: BusinessSchema,
  settings: SettingsSchema,
  resources: doc(z.array(ResourceSchema), 'Staff, rooms and equipment.'),
  services: doc(z.array(ServiceSchema).min(1, 'must list at least one service'), 'Bookable services.'),
  admin_api_key_hashes: doc(
    z.array(z.string().regex(SHA256_HEX_RE, 'must be a lowercase hex SHA-256 digest (64 characters)')),
    'SHA-256 hex digests of API keys that act as the business itself.',
  ).optional(),
  platform_api_keys: doc(
    z.array(
      z.strictObject({
        id: z.string().min(1).max(200),
        sha256: z.string().regex(SHA256_HEX_RE, 'must be a lowercase hex SHA-256 digest (64 characters)'),
      }),
    ),
    'Pre-established platforms: an id each and the SHA-256 hex digest of the API key it presents (Authorization: Bearer).',
  ).optional(),
});

// ---------------------------------------------------------------------------------------------
// The types, inferred from the schema

/** A local opening interval on one day, "HH:MM" to "HH:MM" (closes > opens; "24:00" allowed as a close). */
export type LocalInterval = z.output<typeof LocalIntervalSchema>;
export type WeeklyHours = z.output<typeof WeeklyHoursSchema>;
/** A dated override of the weekly hours: `hours: []` closes the whole day. */
export type DatedException = z.output<typeof DatedExceptionSchema>;
/** An absence: the resource is unavailable between two instants (RFC 3339 with offset). */
export type TimeOff = z.output<typeof TimeOffSchema>;
export type ResourceType = (typeof RESOURCE_TYPES)[number];
export type ResourceDef = z.output<typeof ResourceSchema>;
export type LocationDef = z.output<typeof LocationSchema>;
/**
 * One requirement of a service: one resource of `type`, chosen among `resource_ids`.
 * A slot is one combination: exactly one resource per requirement.
 */
export type ResourceRequirementDef = z.output<typeof RequirementSchema>;
export type ServiceType = ServiceDef['type'];
/**
 * A service as the business file writes it: the published fields of the USP Service object
 * (less `business_id` and `availability_hint`, which the server computes) plus how it is delivered:
 * `requirements` (empty means the service is its own resource), `location_ids` and optional `hours`.
 */
export type ServiceDef = z.output<typeof ServiceSchema>;
/** Knobs of the running business; every one is also a CLI flag. */
export type BusinessSettings = z.output<typeof SettingsSchema>;
export type BusinessDef = Omit<z.output<typeof BusinessFileSchema>, '$schema'>;

export const DEFAULT_SETTINGS: BusinessSettings = d;
