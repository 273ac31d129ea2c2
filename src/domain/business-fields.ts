/**
 * The business file's building blocks: the documentation registry the emitted JSON Schema reads,
 * and the scalar formats (ids, local times and dates, instants, durations, currencies, URLs) the
 * schemas in business.ts are made of.
 */
import { DateTime, Duration, IANAZone } from 'luxon';
import { z } from 'zod';
import { hasControlCharacter } from './plain-text.js';

// ---------------------------------------------------------------------------------------------
// Documentation registry (feeds the emitted JSON Schema; a registry of our own, not zod's global
// one, so repeated module loads never collide on ids)

export interface SchemaDoc {
  id?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
}

/** Titles, descriptions and examples of the schemas below, for the emitted JSON Schema. */
export const businessDocs = z.registry<SchemaDoc>();

/** Attaches documentation to a schema instance (shared instances are documented once, where defined). */
export function doc<T extends z.ZodType>(schema: T, meta: SchemaDoc | string): T {
  if (businessDocs.has(schema)) throw new Error('schema documented twice');
  businessDocs.add(schema, typeof meta === 'string' ? { description: meta } : meta);
  return schema;
}

// ---------------------------------------------------------------------------------------------
// Scalar formats

export const ISO_DURATION_RE = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
export const LOCAL_TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$/;
export const CLOSING_TIME_RE = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const CURRENCY_RE = /^[A-Z]{3}$/;
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const HANDLE_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const HTTP_URL_RE = /^https?:\/\/\S+$/i;
export const SERVICE_TYPE_RE =
  /^(appointment|group|reservation|rental|field_service|[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9_-]*)+)$/;
export const LOCALE_RE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

export function durationMillis(iso: string): number {
  return Duration.fromISO(iso).toMillis();
}

export function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const idString = () =>
  z
    .string()
    .regex(ID_RE, 'must be 1-128 characters: letters, digits, ".", "_", ":" or "-", starting with a letter or digit');

/** The longest name the business gives anything (itself, a service, a resource, a location, a tag). */
export const NAME_MAX = 200;
/** The longest short free text (an address, instructions, a reason, a title). */
export const TEXT_MAX = 2000;
/** The longest long text (a description, a translation of one). */
export const LONG_TEXT_MAX = 20_000;

/**
 * A name the business sets (itself, a service, a resource, a location, a label): one line of at most
 * NAME_MAX characters, trimmed, not empty, with no line break or other control character, since it
 * is written into calendars, mail headers and pages as one line.
 */
export const nameText = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
    .refine(
      (v) => !hasControlCharacter(v),
      'must be one line without control characters (no line breaks, tabs or other control characters)',
    );

/** Free text the business writes (line breaks allowed), at most `max` characters. */
export const freeText = (max = TEXT_MAX) => z.string().max(max, `must be at most ${max} characters`);

/** An ISO 8601 duration such as "PT45M" or "P30D"; `positive` rejects zero-length durations. */
export const isoDuration = (description: string, positive = false) =>
  doc(
    z
      .string()
      .regex(ISO_DURATION_RE, 'must be an ISO 8601 duration such as "PT30M" or "P30D"')
      .refine((v) => !ISO_DURATION_RE.test(v) || Duration.fromISO(v).isValid, 'is not a valid ISO 8601 duration')
      .refine((v) => !positive || !ISO_DURATION_RE.test(v) || durationMillis(v) > 0, 'must be longer than zero'),
    { description: `${description} (ISO 8601 duration)`, examples: [positive ? 'PT45M' : 'PT15M'] },
  );

export const openingTime = () =>
  z.string().regex(LOCAL_TIME_RE, 'must be a local time "HH:MM" between 00:00 and 23:59');
export const closingTime = () =>
  z.string().regex(CLOSING_TIME_RE, 'must be a local time "HH:MM" between 00:01 and 24:00');

export const localDate = () =>
  z
    .string()
    .regex(DATE_RE, 'must be a date YYYY-MM-DD')
    .refine((v) => !DATE_RE.test(v) || DateTime.fromFormat(v, 'yyyy-MM-dd').isValid, 'is not a calendar date');

export const instant = (description: string) =>
  doc(
    z
      .string()
      .regex(INSTANT_RE, 'must be an RFC 3339 date-time with an offset, e.g. "2026-03-02T09:00:00-05:00"')
      .refine((v) => !INSTANT_RE.test(v) || DateTime.fromISO(v, { setZone: true }).isValid, 'is not a valid date-time'),
    { description: `${description} (RFC 3339 date-time with offset)` },
  );

export const currencyCode = (description: string) =>
  doc(
    z.string().regex(CURRENCY_RE, 'must be an ISO 4217 currency code: three uppercase letters, e.g. "USD"'),
    description,
  );

export const timeZone = () =>
  doc(
    z.string().refine((v) => IANAZone.isValidZone(v), 'must be an IANA time zone such as "America/New_York"'),
    {
      description: 'IANA time zone of the business; all local times in the file are in this zone.',
      examples: ['America/New_York'],
    },
  );

export const httpUrl = (description: string) =>
  doc(
    z
      .string()
      .max(TEXT_MAX, `must be at most ${TEXT_MAX} characters`)
      .regex(HTTP_URL_RE, 'must be an absolute http(s) URL')
      .refine((v) => !HTTP_URL_RE.test(v) || isHttpUrl(v), 'must be an absolute http(s) URL'),
    description,
  );

/** A digit string as the newer text writes a minor-unit amount (spec-next 1.1: `^-?[0-9]+$`). */
export const MINOR_UNITS_STRING_RE = /^-?[0-9]+$/;

/**
 * A minor-unit money amount on input: a JSON integer or a string of digits, both accepted (spec-next
 * 1.1: a consumer MUST accept either), read as a safe integer of at least `min`. Anything else (a
 * fraction, a string with other characters, more than 2^53 - 1) is refused naming the member. Counts,
 * sizes and percentages stay integers: only money takes this.
 */
export function minorAmount(min = 0): z.ZodType<number, number | string> {
  return z
    .union([z.number().int(), z.string().regex(MINOR_UNITS_STRING_RE)], {
      error: 'must be an amount in minor currency units: an integer, or a string of digits such as "4500"',
    })
    .transform((v) => (typeof v === 'string' ? Number(v) : v))
    .pipe(
      z
        .number()
        .min(min, `must be at least ${min}`)
        .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`),
    );
}

export const minorUnits = (description: string) =>
  doc(minorAmount(0), `${description} (minor currency units: an integer, or a string of digits; stored as an integer)`);

/** A deposit: a fixed amount (money, so an integer or a digit string, spec-next 1.1) or a percentage of the price (a number). */
export const DepositSchema = z
  .strictObject({
    type: z.enum(['fixed', 'percentage']),
    // A fixed deposit is money (an integer or a digit string, spec-next 1.1); a percentage stays a number.
    value: doc(
      z.union([
        z.number().positive(),
        z
          .string()
          .regex(MINOR_UNITS_STRING_RE, 'a deposit written as a string must be digits (a fixed amount in minor units)'),
      ]),
      'Deposit in minor units (fixed: an integer, or a string of digits) or percent of the price (percentage: a number).',
    ),
    refundable: z.boolean().optional(),
  })
  .superRefine((d, ctx) => {
    if (typeof d.value === 'string' && d.type === 'percentage')
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'a percentage deposit is a number, not a string' });
    const value = Number(d.value);
    if (d.type === 'percentage' && value > 100)
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'a percentage deposit must be at most 100' });
    if (d.type === 'fixed' && !Number.isSafeInteger(value))
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: 'a fixed deposit is an integer amount in minor currency units',
      });
    if (value <= 0) ctx.addIssue({ code: 'custom', path: ['value'], message: 'a deposit must be more than 0' });
  })
  .transform((d) => ({ ...d, value: Number(d.value) }));
