/**
 * The business file's services: duration, pricing, channel, policies, capacity, the resources a
 * service requires, and the service itself (with the protocol's rules from business-rules.ts).
 * Part of the schema of business.ts.
 */
import { z } from 'zod';
import { RESOURCE_TYPES, serviceRules } from './business-rules.js';
import {
  doc,
  HANDLE_RE,
  SERVICE_TYPE_RE,
  durationMillis,
  idString,
  nameText,
  freeText,
  LONG_TEXT_MAX,
  isoDuration,
  currencyCode,
  httpUrl,
  minorUnits,
  DepositSchema,
} from './business-fields.js';

import { WeeklyHoursSchema } from './hours-schema.js';
import {
  CategorySchema,
  DescriptionSchema,
  LinkSchema,
  LocalizedSchema,
  MediaSchema,
  RatingSchema,
} from './service-presentation.js';

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
          if (durationMillis(r.max) < durationMillis(r.min))
            ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be shorter than min' });
        })
        .optional(),
      undetermined: doc(z.literal(true), 'The service has no meaningful length to show.').optional(),
      buffer_before: isoDuration('Blocked preparation time before the service').optional(),
      buffer_after: isoDuration('Blocked clean-up time after the service').optional(),
    })
    .superRefine((d, ctx) => {
      const present = (['fixed', 'range', 'undetermined'] as const).filter((k) => d[k] !== undefined);
      if (present.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: 'needs exactly one of fixed, range or undetermined (USP §3.11)',
        });
      } else if (present.length > 1) {
        ctx.addIssue({
          code: 'custom',
          path: [present[1]],
          message: `cannot be combined with ${present[0]}: exactly one of fixed, range or undetermined (USP §3.11)`,
        });
      }
    }),
  {
    id: 'Duration',
    description: 'How long the service takes: exactly one of fixed, range or undetermined, plus optional buffers.',
  },
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
        late_cancellation_fee_percentage: doc(
          z.number().int().min(0).max(100),
          'Fee for a cancellation after the free window, as a percentage of the price',
        ).optional(),
        no_cancellation_after: isoDuration('No cancellation within this long before the start').optional(),
      })
      .superRefine((c, ctx) => {
        // Spec-next 3.9: at most one of the two; a percentage is never written as a fixed fee.
        if (c.late_cancellation_fee !== undefined && c.late_cancellation_fee_percentage !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['late_cancellation_fee_percentage'],
            message: 'give late_cancellation_fee or late_cancellation_fee_percentage, not both',
          });
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
      if (c.min !== undefined && c.min > c.max)
        ctx.addIssue({ code: 'custom', path: ['min'], message: `must not exceed max (${c.max})` });
    }),
  { id: 'Capacity', description: 'Participants per slot; required for group and reservation services.' },
);

export const RequirementSchema = doc(
  z
    .strictObject({
      type: doc(z.enum(RESOURCE_TYPES), 'Kind of resource required.'),
      name: doc(nameText(), 'Label shown to the buyer, e.g. "Stylist".').optional(),
      selectable: doc(z.boolean(), 'Whether the buyer may choose which resource.').optional(),
      resource_ids: doc(
        z.array(idString()).min(1, 'must list at least one resource'),
        'Ids of the resources (of `type`) that can fill this requirement.',
      ),
    })
    .superRefine((r, ctx) => {
      r.resource_ids.forEach((id, i) => {
        const first = r.resource_ids.indexOf(id);
        if (first !== i)
          ctx.addIssue({ code: 'custom', path: ['resource_ids', i], message: `duplicate resource id "${id}"` });
      });
    }),
  {
    id: 'ResourceRequirement',
    description: 'One resource of a type, chosen among resource_ids, is needed for each booking.',
  },
);

const ServiceObject = z.strictObject({
  id: doc(idString(), 'Service id, unique among the services.'),
  name: nameText(),
  type: doc(
    z
      .string()
      .max(200, 'must be at most 200 characters')
      .regex(
        SERVICE_TYPE_RE,
        'must be appointment, group, reservation, rental, field_service ' +
          'or a reverse-domain vertical such as "com.example.lessons"',
      ),
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
  provider: z
    .strictObject({
      name: nameText(),
      url: httpUrl('Business website.').optional(),
      links: z.array(LinkSchema).optional(),
    })
    .optional(),
  media: z.array(MediaSchema).optional(),
  rating: RatingSchema.optional(),
  handle: doc(
    z
      .string()
      .max(200, 'must be at most 200 characters')
      .regex(HANDLE_RE, 'must be a lowercase slug such as "womens-haircut"'),
    'URL-friendly slug.',
  ).optional(),
  url: httpUrl('Canonical page of the service.').optional(),
  tags: z.array(nameText()).optional(),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => JSON.stringify(m).length <= LONG_TEXT_MAX, `must be at most ${LONG_TEXT_MAX} characters as JSON`)
    .optional(),
  links: z.array(LinkSchema).optional(),
  localized: LocalizedSchema.optional(),
  requirements: doc(
    z.array(RequirementSchema),
    'Resources needed to deliver the service; [] means the service is its own resource (then `hours` is required).',
  ),
  location_ids: doc(z.array(idString()), 'Ids of the business locations where the service is offered.').optional(),
  hours: WeeklyHoursSchema.optional(),
});

export const ServiceSchema = doc(
  ServiceObject.superRefine((s, ctx) =>
    serviceRules(s, (path, message) => ctx.addIssue({ code: 'custom', path, message })),
  ),
  {
    id: 'Service',
    description:
      'A bookable service: the published USP Service fields (without business_id, availability_hint, ' +
      'resources and locations, which the server derives) plus how it is delivered.',
  },
);

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
