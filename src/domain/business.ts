/**
 * The business as the domain sees it: what the business file describes, after validation. The shape
 * is written once, as the zod schema below with its opening hours (hours-schema.ts) and services
 * (service-schema.ts): shapes, single values and the per-object refinements, with the protocol's
 * rules from business-rules.ts; the types the rest of the code uses are inferred from it, and the
 * server emits it as the business file's JSON Schema.
 * Times of day are local to the business time zone ("HH:MM", 24 h); instants are RFC 3339
 * strings or epoch milliseconds (UTC). Durations are ISO 8601 strings (e.g. "PT30M", "P30D").
 */
import { CalendarBuyerDataSchema, CalendarSourceSchema } from './calendar-config.js';
import { MailTemplatesSchema } from './mail-templates.js';
import { checkPaymentWindow } from './payment-window.js';
import { DatedExceptionSchema, TimeOffSchema, WeeklyHoursSchema } from './hours-schema.js';
import { ServiceSchema } from './service-schema.js';
import { z } from 'zod';
import { RESOURCE_TYPES } from './business-rules.js';
import {
  doc,
  SHA256_HEX_RE,
  isHttpUrl,
  idString,
  nameText,
  freeText,
  currencyCode,
  timeZone,
  httpUrl,
} from './business-fields.js';

export { businessDocs, type SchemaDoc } from './business-fields.js';

export {
  WEEKDAYS,
  type Weekday,
  type LocalInterval,
  type WeeklyHours,
  type DatedException,
  type TimeOff,
} from './hours-schema.js';
export {
  DurationSchema,
  ServiceSchema,
  type ResourceRequirementDef,
  type ServiceType,
  type ServiceDef,
} from './service-schema.js';

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
        'Calendars the resource is busy in (read in the background; ' +
          'a CalDAV one with write: true also receives its bookings).',
      ).optional(),
    })
    .superRefine((r, ctx) => {
      const seen = new Map<string, number>();
      r.exceptions?.forEach((ex, i) => {
        const first = seen.get(ex.date);
        if (first !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['exceptions', i, 'date'],
            message: `duplicate date (also at exceptions[${first}])`,
          });
        else seen.set(ex.date, i);
      });
    }),
  { id: 'Resource', description: 'A staff member, room, piece of equipment or other resource that services need.' },
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
      payment_ttl_seconds: doc(
        z.number().int().positive(),
        'Longest a payment link stays open after it is issued, in seconds.',
      ).default(d.payment_ttl_seconds),
      payment_due_before_start_seconds: doc(
        z.number().int().min(0),
        'Payment links close this long before the start if sooner (seconds).',
      ).default(d.payment_due_before_start_seconds),
      payment_min_window_seconds: doc(
        z.number().int().positive(),
        'Shortest a payment link stays open (never past the start), seconds.',
      ).default(d.payment_min_window_seconds),
      manual_confirmation_ttl_seconds: doc(
        z.number().int().positive(),
        'How long a manual-confirmation booking waits for the business, in seconds.',
      ).default(d.manual_confirmation_ttl_seconds),
      waitlist_offer_ttl_seconds: doc(
        z.number().int().positive(),
        'How long a waitlist offer can be accepted, in seconds.',
      ).default(d.waitlist_offer_ttl_seconds),
      max_query_days: doc(z.number().int().positive(), 'Longest availability query range, in days.').default(
        d.max_query_days,
      ),
      max_active_holds_per_buyer: doc(
        z.number().int().positive(),
        'Concurrent active holds per platform and buyer for one service.',
      ).default(d.max_active_holds_per_buyer),
      max_waitlist_entries: doc(z.number().int().positive(), "Most entries on one service's waitlist.").default(
        d.max_waitlist_entries,
      ),
      reminder_offset_seconds: doc(
        z.number().int().min(0),
        'booking.reminder goes out this long before the start; 0 turns reminders off.',
      ).default(d.reminder_offset_seconds),
      mail_reminders: doc(
        z.boolean(),
        'False: buyers get no reminder mail (confirmations, changes and payment requests always go).',
      ).default(d.mail_reminders),
      calendar_feed_buyer_data: CalendarBuyerDataSchema,
      mail_templates: MailTemplatesSchema,
      public_url: httpUrl(
        'Public origin of the server (absolute http(s) URL); --public-url overrides it. ' +
          'Absent: the address the server listens on.',
      ).optional(),
      checkout_url_template: doc(
        z
          .string()
          .max(2000, 'must be at most 2000 characters')
          .refine(
            (v) => isHttpUrl(v.replaceAll('{booking_id}', 'b').replaceAll('{action_id}', 'a')),
            'must be an absolute http(s) URL (placeholders {booking_id}, {action_id})',
          ),
        'Checkout page template; {booking_id} and {action_id} are replaced.',
      ).optional(),
      platform_payments: doc(
        z.boolean(),
        'True: platforms may charge the buyer themselves and report it with confirm-payment ' +
          "(the profile's checkout_systems then lists embedded). " +
          "False: only the business's own checkout completes a payment.",
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
        phone: doc(
          z.string().min(3).max(40),
          'A phone number people can call about a booking, as it is dialled (e.g. "+1 212 555 0147").',
        ).optional(),
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
    'Pre-established platforms: an id each and the SHA-256 hex digest of the API key it presents ' +
      '(Authorization: Bearer).',
  ).optional(),
});

// ---------------------------------------------------------------------------------------------
// The types, inferred from the schema

export type ResourceType = (typeof RESOURCE_TYPES)[number];
export type ResourceDef = z.output<typeof ResourceSchema>;
export type LocationDef = z.output<typeof LocationSchema>;
/** Knobs of the running business; every one is also a CLI flag. */
export type BusinessSettings = z.output<typeof SettingsSchema>;
export type BusinessDef = Omit<z.output<typeof BusinessFileSchema>, '$schema'>;

export const DEFAULT_SETTINGS: BusinessSettings = d;
