/**
 * The business file: the JSON document that describes one business (locations, resources,
 * services, settings). The server validates it once at startup; every problem is reported with
 * the JSON path of the offending member so that the operator can fix the file in one pass.
 *
 * Validation happens in three layers:
 *  1. a zod schema for shapes and single values (durations, "HH:MM" times, dates, instants,
 *     time zones, currency codes, URLs);
 *  2. per-object refinements (USP §3.11 payment/pricing matrix, duration exclusivity, capacity of
 *     group and reservation services, closes > opens, ...). They run for every object whose own
 *     shape is valid, even when a sibling object is broken;
 *  3. whole-file rules run on the raw input (unique ids, references between services, resources
 *     and locations, one currency), so they are reported alongside shape errors.
 *
 * The same zod schema is emitted as a JSON Schema (`businessFileJsonSchema`), which editors can
 * use through the file's `$schema` member.
 */
import { readFile } from 'node:fs/promises';
import { DateTime, Duration, IANAZone } from 'luxon';
import { z } from 'zod';
import { DEFAULT_SETTINGS, WEEKDAYS, type BusinessDef } from '../domain/business.js';
import { findSlotTagClash } from '../domain/slot-tags.js';

// ---------------------------------------------------------------------------------------------
// Errors

export interface BusinessFileIssue {
  /** JSON path of the offending member, e.g. `services[2].policies.payment_timing`. */
  path: string;
  message: string;
}

/** Path used for issues about the whole document (it is not an object, ...). */
export const ROOT_PATH = '(root)';
/** Path used for issues about the file itself (unreadable, not JSON). */
export const FILE_PATH = '(file)';

export class BusinessFileError extends Error {
  readonly issues: BusinessFileIssue[];
  readonly source?: string;

  constructor(issues: BusinessFileIssue[], source?: string) {
    super(formatMessage(issues, source));
    this.name = 'BusinessFileError';
    this.issues = issues;
    this.source = source;
  }
}

function formatMessage(issues: BusinessFileIssue[], source?: string): string {
  const prefix = source ? `${source}: ` : '';
  if (issues.length === 1 && issues[0].path === FILE_PATH) return `${prefix}${issues[0].message}`;
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  const lines = issues.map((issue) => `  ${issue.path}: ${issue.message}`);
  return [`${prefix}invalid business file (${count})`, ...lines].join('\n');
}

type PathSegment = string | number;

/** `['services', 2, 'policies', 'payment_timing']` → `services[2].policies.payment_timing`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out || ROOT_PATH;
}

// ---------------------------------------------------------------------------------------------
// Documentation registry (feeds the emitted JSON Schema; kept private so repeated module loads
// never collide on ids in zod's global registry)

interface SchemaDoc {
  id?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
}

const docs = z.registry<SchemaDoc>();

/** Attaches documentation to a schema instance (shared instances are documented once, where defined). */
function doc<T extends z.ZodType>(schema: T, meta: SchemaDoc | string): T {
  if (docs.has(schema)) throw new Error('schema documented twice');
  docs.add(schema, typeof meta === 'string' ? { description: meta } : meta);
  return schema;
}

// ---------------------------------------------------------------------------------------------
// Scalar formats

const ISO_DURATION_RE = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
const LOCAL_TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$/;
const CLOSING_TIME_RE = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const CURRENCY_RE = /^[A-Z]{3}$/;
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const HANDLE_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const HTTP_URL_RE = /^https?:\/\/\S+$/i;
const SERVICE_TYPE_RE = /^(appointment|group|reservation|rental|field_service|[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9_-]*)+)$/;
const LOCALE_RE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

function durationMillis(iso: string): number {
  return Duration.fromISO(iso).toMillis();
}

function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const idString = () => z.string().regex(ID_RE, 'must be 1-128 characters: letters, digits, ".", "_", ":" or "-", starting with a letter or digit');

const nonEmpty = () => z.string().trim().min(1, 'must not be empty');

/** An ISO 8601 duration such as "PT45M" or "P30D"; `positive` rejects zero-length durations. */
const isoDuration = (description: string, positive = false) =>
  doc(
    z
      .string()
      .regex(ISO_DURATION_RE, 'must be an ISO 8601 duration such as "PT30M" or "P30D"')
      .refine((v) => !ISO_DURATION_RE.test(v) || Duration.fromISO(v).isValid, 'is not a valid ISO 8601 duration')
      .refine((v) => !positive || !ISO_DURATION_RE.test(v) || durationMillis(v) > 0, 'must be longer than zero'),
    { description: `${description} (ISO 8601 duration)`, examples: [positive ? 'PT45M' : 'PT15M'] },
  );

const openingTime = () => z.string().regex(LOCAL_TIME_RE, 'must be a local time "HH:MM" between 00:00 and 23:59');
const closingTime = () => z.string().regex(CLOSING_TIME_RE, 'must be a local time "HH:MM" between 00:01 and 24:00');

const localDate = () =>
  z
    .string()
    .regex(DATE_RE, 'must be a date YYYY-MM-DD')
    .refine((v) => !DATE_RE.test(v) || DateTime.fromFormat(v, 'yyyy-MM-dd').isValid, 'is not a calendar date');

const instant = (description: string) =>
  doc(
    z
      .string()
      .regex(INSTANT_RE, 'must be an RFC 3339 date-time with an offset, e.g. "2026-03-02T09:00:00-05:00"')
      .refine((v) => !INSTANT_RE.test(v) || DateTime.fromISO(v, { setZone: true }).isValid, 'is not a valid date-time'),
    { description: `${description} (RFC 3339 date-time with offset)` },
  );

const currencyCode = (description: string) =>
  doc(z.string().regex(CURRENCY_RE, 'must be an ISO 4217 currency code: three uppercase letters, e.g. "USD"'), description);

const timeZone = () =>
  doc(
    z.string().refine((v) => IANAZone.isValidZone(v), 'must be an IANA time zone such as "America/New_York"'),
    { description: 'IANA time zone of the business; all local times in the file are in this zone.', examples: ['America/New_York'] },
  );

const httpUrl = (description: string) =>
  doc(z.string().regex(HTTP_URL_RE, 'must be an absolute http(s) URL').refine((v) => !HTTP_URL_RE.test(v) || isHttpUrl(v), 'must be an absolute http(s) URL'), description);

const minorUnits = (description: string) => doc(z.number().int().nonnegative(), `${description} (integer, minor currency units)`);

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
    .strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, dayIntervals(d).optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<z.ZodArray<typeof LocalIntervalSchema>>>)
    .superRefine((week, ctx) => {
      for (const day of WEEKDAYS) {
        const list = week[day];
        if (list) checkNoOverlap(list, ctx, [day]);
      }
    }),
  {
    id: 'WeeklyHours',
    description: 'Weekly recurring local hours, by weekday; a missing day is closed. On a resource: its working hours. On a service: the window in which bookings must start and end (e.g. a class timetable).',
  },
);

const DatedExceptionSchema = doc(
  z
    .strictObject({
      date: doc(localDate(), 'Local date YYYY-MM-DD.'),
      hours: doc(z.array(LocalIntervalSchema), 'Hours on that date, replacing the weekly hours; [] closes the whole day.'),
      reason: z.string().optional(),
    })
    .superRefine((v, ctx) => checkNoOverlap(v.hours, ctx, ['hours'])),
  { id: 'DatedException', description: 'A dated override of the weekly schedule.' },
);

const TimeOffSchema = doc(
  z
    .strictObject({
      start: instant('First instant of the absence'),
      end: instant('End of the absence (exclusive)'),
      reason: z.string().optional(),
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
    name: nonEmpty(),
    address: z.string().optional(),
    coordinates: z
      .strictObject({
        lat: z.number().min(-90).max(90),
        lng: z.number().min(-180).max(180),
      })
      .optional(),
  }),
  { id: 'Location', description: 'A place where the business delivers services.' },
);

const RESOURCE_TYPES = ['staff', 'room', 'equipment', 'other'] as const;
const resourceType = () => z.enum(RESOURCE_TYPES);

const ResourceSchema = doc(
  z
    .strictObject({
      id: doc(idString(), 'Resource id, unique among the resources.'),
      type: doc(resourceType(), 'What kind of resource this is.'),
      name: nonEmpty(),
      location_id: doc(idString(), 'Id of the business location the resource belongs to.').optional(),
      schedule: WeeklyHoursSchema,
      exceptions: z.array(DatedExceptionSchema).optional(),
      time_off: z.array(TimeOffSchema).optional(),
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

const DurationSchema = doc(
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
  z
    .strictObject({
      model: doc(z.enum(PRICING_MODELS), 'Pricing model.'),
      amount: minorUnits('Price').optional(),
      currency: currencyCode('ISO 4217 currency code; must equal the business currency.'),
      price_range: z
        .strictObject({ min: minorUnits('Lowest price'), max: minorUnits('Highest price') })
        .superRefine((r, ctx) => {
          if (r.max < r.min) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
        })
        .optional(),
      deposit: z
        .strictObject({
          type: z.enum(['fixed', 'percentage']),
          value: doc(z.number().positive(), 'Deposit in minor units (fixed) or percent of the price (percentage).'),
          refundable: z.boolean().optional(),
        })
        .superRefine((d, ctx) => {
          if (d.type === 'percentage' && d.value > 100) ctx.addIssue({ code: 'custom', path: ['value'], message: 'a percentage deposit must be at most 100' });
          if (d.type === 'fixed' && !Number.isInteger(d.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: 'a fixed deposit is an integer amount in minor currency units' });
        })
        .optional(),
    }),
  { id: 'Pricing', description: 'How the service is priced (amounts in minor currency units).' },
);

const ChannelSchema = doc(
  z.strictObject({
    type: z.enum(['at_business_location', 'at_buyer_location', 'virtual', 'phone', 'hybrid']),
    virtual_provider: z.string().optional(),
    instructions: z.string().optional(),
    service_area: doc(z.string(), 'Free-text description of the area served (buyer-location services).').optional(),
  }),
  { id: 'Channel', description: 'Where or how the service is delivered.' },
);

const PoliciesSchema = doc(
  z.strictObject({
    cancellation: z.strictObject({
      allowed: z.boolean(),
      free_cancellation_until: isoDuration('Free cancellation up to this long before the start').optional(),
      late_cancellation_fee: minorUnits('Fee for a cancellation after the free window').optional(),
      no_cancellation_after: isoDuration('No cancellation within this long before the start').optional(),
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
    booking_window: z
      .strictObject({
        min_advance: isoDuration('Earliest a slot can be booked before it starts'),
        max_advance: isoDuration('Furthest ahead a slot can be booked', true),
        slot_interval: isoDuration('Spacing between slot starts', true),
      })
      .superRefine((w, ctx) => {
        if (durationMillis(w.max_advance) < durationMillis(w.min_advance)) {
          ctx.addIssue({ code: 'custom', path: ['max_advance'], message: 'must not be shorter than min_advance' });
        }
      }),
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

const CategorySchema = doc(
  z.looseObject({
    taxonomy: doc(nonEmpty(), 'Labeling system, e.g. "merchant" or an external taxonomy.'),
    id: z.string().optional(),
    name: z.string().optional(),
    parent_id: z.string().optional(),
    value: doc(z.string(), 'Taxonomy-native code or path; required outside the merchant taxonomy.').optional(),
    primary: z.boolean().optional(),
  }),
  { id: 'ServiceCategory', description: 'A category label within one taxonomy.' },
);

const DescriptionSchema = doc(
  z.union(
    [
      z.string(),
      z.strictObject({ plain: z.string(), markdown: z.string().optional(), html: z.string().optional() }),
    ],
    { error: 'must be a string or an object with a "plain" member' },
  ),
  { id: 'Description', description: 'Plain-text description, or { plain, markdown?, html? }.' },
);

const LinkSchema = doc(
  z.strictObject({ type: nonEmpty(), url: httpUrl('Address of the page.'), title: z.string().optional() }),
  { id: 'Link', description: 'A typed link to a policy or information page.' },
);

const MediaSchema = doc(
  z.looseObject({
    type: doc(nonEmpty(), 'Media format, e.g. "image" or "video".'),
    url: httpUrl('Address of the media.'),
    alt_text: z.string().optional(),
    role: z.enum(['hero', 'gallery', 'thumbnail']).optional(),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
  }),
  { id: 'Media', description: 'An image or video of the service.' },
);

const RatingSchema = doc(
  z
    .strictObject({
      value: z.number().min(0),
      scale_max: z.number().min(1),
      scale_min: z.number().min(0).optional(),
      count: z.number().int().min(0).optional(),
    })
    .superRefine((r, ctx) => {
      const min = r.scale_min ?? 1;
      if (r.value < min || r.value > r.scale_max) ctx.addIssue({ code: 'custom', path: ['value'], message: `must lie between ${min} and ${r.scale_max}` });
    }),
  { id: 'Rating', description: 'Aggregate rating of the service.' },
);

const LOCALIZED_KEYS = ['name', 'description', 'category_name', 'channel_instructions'];

const LocalizedSchema = doc(
  z.record(
    z.string().refine((k) => LOCALIZED_KEYS.includes(k), `must be one of ${LOCALIZED_KEYS.join(', ')}`),
    z.record(z.string().regex(LOCALE_RE, 'must be a BCP 47 language tag such as "es" or "zh-Hant"'), z.string()),
  ),
  { id: 'LocalizedFields', description: 'Per-locale overrides of name, description, category_name and channel_instructions.' },
);

const RequirementSchema = doc(
  z
    .strictObject({
      type: doc(resourceType(), 'Kind of resource required.'),
      name: doc(z.string(), 'Label shown to the buyer, e.g. "Stylist".').optional(),
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

const FEE_FIXED_MODELS = new Set(['fixed', 'hourly', 'per_person']);

const ServiceObject = z.strictObject({
  id: doc(idString(), 'Service id, unique among the services.'),
  name: nonEmpty(),
  type: doc(
    z.string().regex(SERVICE_TYPE_RE, 'must be appointment, group, reservation, rental, field_service or a reverse-domain vertical such as "com.example.lessons"'),
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
  provider: z.strictObject({ name: nonEmpty(), url: httpUrl('Business website.').optional(), links: z.array(LinkSchema).optional() }).optional(),
  media: z.array(MediaSchema).optional(),
  rating: RatingSchema.optional(),
  handle: doc(z.string().regex(HANDLE_RE, 'must be a lowercase slug such as "womens-haircut"'), 'URL-friendly slug.').optional(),
  url: httpUrl('Canonical page of the service.').optional(),
  tags: z.array(nonEmpty()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  links: z.array(LinkSchema).optional(),
  localized: LocalizedSchema.optional(),
  requirements: doc(z.array(RequirementSchema), 'Resources needed to deliver the service; [] means the service is its own resource (then `hours` is required).'),
  location_ids: doc(z.array(idString()), 'Ids of the business locations where the service is offered.').optional(),
  hours: WeeklyHoursSchema.optional(),
});

type ServiceInput = z.output<typeof ServiceObject>;

const ServiceSchema = doc(
  ServiceObject.superRefine((s, ctx) => checkService(s, ctx)),
  {
    id: 'Service',
    description: 'A bookable service: the published USP Service fields (without business_id, availability_hint, resources and locations, which the server derives) plus how it is delivered.',
  },
);

/** Cross-field rules inside one service, including the USP §3.11 payment/pricing matrix. */
function checkService(s: ServiceInput, ctx: z.RefinementCtx): void {
  const issue = (path: PathSegment[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const { pricing, policies, duration } = s;

  if (!policies.requires_payment) {
    if (pricing.model !== 'free') issue(['pricing', 'model'], 'must be "free" when policies.requires_payment is false (USP §3.11)');
    if (policies.payment_timing !== undefined) issue(['policies', 'payment_timing'], 'must be absent when requires_payment is false (USP §3.11)');
  } else {
    if (pricing.model === 'free') issue(['pricing', 'model'], 'must not be "free" when policies.requires_payment is true (USP §3.11)');
    if (policies.payment_timing === undefined) issue(['policies', 'payment_timing'], 'is required when requires_payment is true (USP §3.11)');
  }
  if (policies.payment_timing === 'deposit_required' && pricing.deposit === undefined) {
    issue(['pricing', 'deposit'], 'is required when payment_timing is "deposit_required" (USP §3.11)');
  }
  if (pricing.model === 'free') {
    if (pricing.amount !== undefined) issue(['pricing', 'amount'], 'must be absent for the "free" pricing model (USP §3.11)');
    if (pricing.price_range !== undefined) issue(['pricing', 'price_range'], 'must be absent for the "free" pricing model (USP §3.8)');
  }
  if (FEE_FIXED_MODELS.has(pricing.model) && !(pricing.amount !== undefined && pricing.amount > 0)) {
    issue(['pricing', 'amount'], `must be present and greater than zero for the "${pricing.model}" pricing model (USP §3.11)`);
  }
  if (duration.undetermined && pricing.model === 'hourly') {
    issue(['pricing', 'model'], 'cannot be "hourly" when duration.undetermined is true (USP §3.11)');
  }
  const deposit = pricing.deposit;
  if (deposit?.type === 'fixed' && pricing.amount !== undefined && deposit.value > pricing.amount) {
    issue(['pricing', 'deposit', 'value'], `must not exceed pricing.amount (${pricing.amount})`);
  }
  if ((s.type === 'group' || s.type === 'reservation') && s.capacity === undefined) {
    issue(['capacity'], `is required for ${s.type} services (capacity.max >= 1)`);
  }
  if (s.requirements.length === 0 && s.hours === undefined) {
    issue(['hours'], 'is required when the service has no requirements (it then is its own resource)');
  }
  checkCategories(s.categories ?? [], ctx);
}

function checkCategories(categories: Array<z.output<typeof CategorySchema>>, ctx: z.RefinementCtx): void {
  let primary = -1;
  categories.forEach((c, i) => {
    const path = ['categories', i];
    if (c.id === undefined && c.name === undefined && c.value === undefined) {
      ctx.addIssue({ code: 'custom', path, message: 'needs at least one of id, name or value' });
    }
    if (c.taxonomy !== 'merchant' && c.value === undefined) {
      ctx.addIssue({ code: 'custom', path: [...path, 'value'], message: `is required for the non-merchant taxonomy "${c.taxonomy}"` });
    }
    if (c.primary === true) {
      if (primary >= 0) ctx.addIssue({ code: 'custom', path: [...path, 'primary'], message: `only one category may be primary (categories[${primary}] already is)` });
      else primary = i;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Settings and the whole file

const d = DEFAULT_SETTINGS;

const SettingsSchema = doc(
  z
    .strictObject({
      hold_ttl_seconds: doc(z.number().int().positive(), 'Hold time-to-live in seconds.').default(d.hold_ttl_seconds),
      payment_ttl_seconds: doc(z.number().int().positive(), 'How long a payment action stays open, in seconds.').default(d.payment_ttl_seconds),
      manual_confirmation_ttl_seconds: doc(z.number().int().positive(), 'How long a manual-confirmation booking waits for the business, in seconds.').default(
        d.manual_confirmation_ttl_seconds,
      ),
      waitlist_offer_ttl_seconds: doc(z.number().int().positive(), 'How long a waitlist offer can be accepted, in seconds.').default(d.waitlist_offer_ttl_seconds),
      max_query_days: doc(z.number().int().positive(), 'Longest availability query range, in days.').default(d.max_query_days),
      max_active_holds_per_buyer: doc(z.number().int().positive(), 'Concurrent active holds per platform and buyer for one service.').default(
        d.max_active_holds_per_buyer,
      ),
      max_waitlist_entries: doc(z.number().int().positive(), "Most entries on one service's waitlist.").default(d.max_waitlist_entries),
      reminder_offset_seconds: doc(z.number().int().min(0), 'booking.reminder goes out this long before the start; 0 turns reminders off.').default(
        d.reminder_offset_seconds,
      ),
      public_url: httpUrl('Public origin of the server (absolute http(s) URL).').default(d.public_url),
      checkout_url_template: doc(
        z
          .string()
          .refine((v) => isHttpUrl(v.replaceAll('{booking_id}', 'b').replaceAll('{action_id}', 'a')), 'must be an absolute http(s) URL (placeholders {booking_id}, {action_id})'),
        'Checkout page template; {booking_id} and {action_id} are replaced.',
      ).optional(),
    })
    .prefault({}),
  { id: 'Settings', description: 'Knobs of the running server; every member is optional and has a default.' },
);

const BusinessSchema = doc(
  z.strictObject({
    id: doc(idString(), 'Business id.'),
    name: nonEmpty(),
    timezone: timeZone(),
    currency: currencyCode('Operating currency (ISO 4217); every service is priced in it.'),
    locale: doc(
      z.string().max(35).refine((v) => { try { return Intl.getCanonicalLocales(v).length === 1; } catch { return false; } }, 'must be a BCP 47 language tag'),
      'Language of the buyer pages when the browser names none we can use (BCP 47, e.g. "en-US"); default "en-US".',
    ).optional(),
    locations: doc(z.array(LocationSchema), 'Places of business; [] for a business without premises.'),
  }),
  { id: 'Business', description: 'Identity, time zone, currency and locations of the business.' },
);

const BusinessFileSchema = z.strictObject({
  $schema: doc(z.string(), 'Reference to this JSON Schema, for editors; ignored by the server.').optional(),
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
// Whole-file rules, run on the raw input so they are reported together with shape errors

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function records(v: unknown): Array<[number, Record<string, unknown>]> {
  if (!Array.isArray(v)) return [];
  return v.flatMap((item, i) => (isRecord(item) ? [[i, item] as [number, Record<string, unknown>]] : []));
}

function isResourceType(v: string): boolean {
  return (RESOURCE_TYPES as readonly string[]).includes(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function checkWholeFile(input: unknown, add: (path: PathSegment[], message: string) => void): void {
  if (!isRecord(input)) return;
  const business = isRecord(input.business) ? input.business : {};
  const locationsKnown = Array.isArray(business.locations);
  const currency = str(business.currency);

  /** Flags repeated ids in one list; returns the set of ids. */
  const uniqueIds = (list: Array<[number, Record<string, unknown>]>, base: PathSegment[], what: string, key = 'id') => {
    const first = new Map<string, number>();
    for (const [i, item] of list) {
      const id = str(item[key]);
      if (id === undefined) continue;
      const prev = first.get(id);
      if (prev !== undefined) add([...base, i, key], `duplicate ${what} "${id}" (also at ${formatPath([...base, prev])})`);
      else first.set(id, i);
    }
    return first;
  };

  const locations = uniqueIds(records(business.locations), ['business', 'locations'], 'location id');
  const resourceList = records(input.resources);
  uniqueIds(resourceList, ['resources'], 'resource id');
  const resourceTypes = new Map<string, string>();
  for (const [i, r] of resourceList) {
    const id = str(r.id);
    if (id !== undefined && !resourceTypes.has(id)) resourceTypes.set(id, str(r.type) ?? '');
    // (a resource whose own type is invalid is reported once, at resources[i].type)
    const loc = str(r.location_id);
    if (loc !== undefined && locationsKnown && !locations.has(loc)) add(['resources', i, 'location_id'], `names no location in business.locations ("${loc}")`);
  }

  const services = records(input.services);
  uniqueIds(services, ['services'], 'service id');
  uniqueIds(services, ['services'], 'service handle', 'handle');
  for (const [i, s] of services) {
    const pricing = isRecord(s.pricing) ? s.pricing : {};
    const svcCurrency = str(pricing.currency);
    if (svcCurrency !== undefined && currency !== undefined && svcCurrency !== currency) {
      add(['services', i, 'pricing', 'currency'], `must equal the business currency "${currency}" (got "${svcCurrency}")`);
    }
    if (Array.isArray(s.location_ids) && locationsKnown) {
      s.location_ids.forEach((loc, j) => {
        if (typeof loc === 'string' && !locations.has(loc)) add(['services', i, 'location_ids', j], `names no location in business.locations ("${loc}")`);
      });
    }
    if (!Array.isArray(input.resources)) continue;
    for (const [k, req] of records(s.requirements)) {
      const wanted = str(req.type);
      if (!Array.isArray(req.resource_ids)) continue;
      req.resource_ids.forEach((rid, m) => {
        if (typeof rid !== 'string') return;
        const path = ['services', i, 'requirements', k, 'resource_ids', m];
        const actual = resourceTypes.get(rid);
        if (actual === undefined) add(path, `names no resource ("${rid}")`);
        else if (wanted !== undefined && actual !== wanted && isResourceType(actual)) add(path, `resource "${rid}" is of type "${actual}", the requirement needs "${wanted}"`);
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing

const UNKNOWN_MEMBER_HINTS: Record<string, string> = {
  business_id: 'the server fills business_id in',
  availability_hint: 'the server computes availability_hint',
  resources: 'the published resources list is derived from requirements',
  locations: 'the published locations list is derived from location_ids',
  images: 'use media instead of the deprecated images',
};

function zodIssues(error: z.ZodError): BusinessFileIssue[] {
  const out: BusinessFileIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = issue.path.length > 0 ? UNKNOWN_MEMBER_HINTS[key] : undefined;
        out.push({ path: formatPath([...issue.path, key]), message: hint ? `unknown member (${hint})` : 'unknown member' });
      }
    } else if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      out.push({ path: formatPath(issue.path), message: `invalid key: ${issue.issues.map((i) => i.message).join('; ')}` });
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}

/** Friendlier wording for a few of zod's default messages. */
const errorMap: z.core.$ZodErrorMap = (iss) => {
  if (iss.code === 'invalid_type' && iss.input === undefined) return 'is required';
  return undefined;
};

/**
 * Validates a parsed business file and returns the business with every setting filled in.
 * Throws a BusinessFileError that lists every problem found.
 */
export function parseBusinessFile(json: unknown, source?: string): BusinessDef {
  const result = BusinessFileSchema.safeParse(json, { error: errorMap });
  const issues: BusinessFileIssue[] = result.success ? [] : zodIssues(result.error);
  checkWholeFile(json, (path, message) => issues.push({ path: formatPath(path), message }));

  // One report per path and message, in document order of discovery.
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (unique.length > 0 || !result.success) throw new BusinessFileError(unique, source);

  const { $schema: _ignored, ...def } = result.data;
  // Slot ids name resource combinations by a 48-bit tag: refuse a file in which two would share one.
  const clash = findSlotTagClash(def.services, new Map(def.resources.map((r) => [r.id, r] as const)));
  if (clash) {
    const at = def.services.findIndex((s) => s.id === clash.second.serviceId);
    throw new BusinessFileError([{ path: `services[${at}]`, message: clash.message }], source);
  }
  return def;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'cannot read the business file: no such file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot read the business file: permission denied';
    case 'EISDIR':
      return 'cannot read the business file: it is a directory';
    default:
      return `cannot read the business file: ${oneLine(err instanceof Error ? err.message : String(err))}`;
  }
}

function jsonFailure(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(message);
  let where = '';
  if (pos) {
    const before = text.slice(0, Number(pos[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    where = ` at line ${line}, column ${column}`;
  }
  const detail = message.replace(/\s*in JSON at position \d+/i, '').replace(/\s*\(line \d+ column \d+\)/i, '');
  return `not valid JSON${where}: ${oneLine(detail)}`;
}

/** Reads, parses and validates a business file; every failure is a BusinessFileError. */
export async function loadBusinessFile(path: string): Promise<BusinessDef> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new BusinessFileError([{ path: FILE_PATH, message: readFailure(err) }], path);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new BusinessFileError([{ path: FILE_PATH, message: jsonFailure(err, text) }], path);
  }
  return parseBusinessFile(json, path);
}

// ---------------------------------------------------------------------------------------------
// JSON Schema

export const BUSINESS_FILE_SCHEMA_ID = 'https://usp-server.dev/schemas/business-file.json';

type JsonObject = Record<string, unknown>;

const has = (...names: string[]): JsonObject => ({ type: 'object', required: names });
const member = (name: string, schema: JsonObject): JsonObject => ({ type: 'object', properties: { [name]: schema }, required: [name] });
const props = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({ type: 'object', properties, ...extra });

/** The cross-field rules that JSON Schema can express, added to the emitted definitions. */
function addConditionals(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  if (ctx.zodSchema === DurationSchema) {
    ctx.jsonSchema.oneOf = [has('fixed'), has('range'), has('undetermined')];
  } else if (ctx.zodSchema === ServiceSchema) {
    const policy = (name: string, schema: JsonObject) => member('policies', member(name, schema));
    const price = (name: string, schema: JsonObject) => member('pricing', member(name, schema));
    const model = (schema: JsonObject) => props({ pricing: props({ model: schema }) });
    ctx.jsonSchema.allOf = [
      {
        if: policy('requires_payment', { const: false }),
        then: props({ policies: { not: has('payment_timing') }, pricing: props({ model: { const: 'free' } }) }),
      },
      {
        if: policy('requires_payment', { const: true }),
        then: props({ policies: has('payment_timing'), pricing: props({ model: { not: { const: 'free' } } }) }),
      },
      { if: policy('payment_timing', { const: 'deposit_required' }), then: props({ pricing: has('deposit') }) },
      { if: price('model', { const: 'free' }), then: props({ pricing: { not: { anyOf: [has('amount'), has('price_range')] } } }) },
      {
        if: price('model', { enum: ['fixed', 'hourly', 'per_person'] }),
        then: props({ pricing: props({ amount: { type: 'integer', exclusiveMinimum: 0 } }, { required: ['amount'] }) }),
      },
      { if: member('duration', has('undetermined')), then: model({ not: { const: 'hourly' } }) },
      { if: member('type', { enum: ['group', 'reservation'] }), then: has('capacity') },
      { if: member('requirements', { type: 'array', maxItems: 0 }), then: has('hours') },
    ];
  }
}

function buildJsonSchema(): JsonObject {
  const generated = z.toJSONSchema(BusinessFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
    metadata: docs,
    unrepresentable: 'any',
    override: (ctx) => addConditionals(ctx as { zodSchema: unknown; jsonSchema: JsonObject }),
  }) as JsonObject;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: BUSINESS_FILE_SCHEMA_ID,
    title: 'USP server business file',
    description:
      'Describes one business for usp-server: its identity, time zone and currency, locations, resources with their schedules, ' +
      'the services it offers (USP Service fields plus delivery requirements) and server settings. Some cross-references ' +
      '(resource and location ids, unique ids, one currency) are checked only by the server.',
    ...rest,
  };
}

/** JSON Schema (draft 2020-12) of the business file, generated from the zod schema. */
export const businessFileJsonSchema: Readonly<Record<string, unknown>> = buildJsonSchema();
