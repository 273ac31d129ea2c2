/**
 * Input shapes shared by several operations. These zod schemas are the single source: they
 * validate what arrives, type the handlers, and are emitted as JSON Schema for MCP `tools/list`
 * and for the published OpenAPI document. They are never stricter than the protocol: unknown
 * members are dropped, not refused.
 */
import { z } from 'zod';
import { isIsoDate, parseInstant } from '../domain/index.js';

export const id = (what: string) => z.string().min(1).max(512).describe(what);

/** A line break, a tab or another control character (C0, DEL, C1, the Unicode line and paragraph separators). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A single-line text member of a person (a name, a phone number, an email): it is written into mail,
 * calendar entries and pages as one line, so a line break or other control character is refused.
 * A refinement, so the published schemas stay as they were (the spec sets no pattern).
 */
export function oneLine<T extends z.ZodString | z.ZodEmail>(s: T): T {
  return s.refine(
    (v) => !CONTROL_CHARACTER.test(v),
    'must be one line of text, without line breaks or other control characters',
  ) as T;
}

export const Buyer = z
  .object({
    first_name: oneLine(z.string().min(1).max(200)),
    last_name: oneLine(z.string().min(1).max(200)),
    email: oneLine(z.email().max(320)),
    phone_number: oneLine(z.string().max(50)).optional(),
    consent: z.record(z.string(), z.boolean()).optional().describe('Flags granted, e.g. marketing.'),
  })
  .describe('The person booking.');

export const DeliveryAddress = z
  .object({
    line1: z.string().min(1).max(500),
    line2: z.string().max(500).optional(),
    city: z.string().min(1).max(200),
    region: z.string().max(200).optional(),
    postal_code: z.string().max(50).optional(),
    country: z.string().min(2).max(100),
    coordinates: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).optional(),
  })
  .describe('Where the service happens, required for services delivered at the buyer location.');

export const PaginationRequest = z
  .object({
    cursor: z.string().max(2048).nullable().optional().describe('Opaque cursor from the previous page.'),
    limit: z.number().int().min(1).max(100).optional(),
  })
  .optional();

export const DateOrInstant = z
  .string()
  .refine((s) => isIsoDate(s) || parseInstant(s) !== null, 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time');

/** Opaque cursors: base64url JSON, so a tampered cursor is detected rather than trusted. */
export function encodeCursor(v: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
}

export function decodeCursor(s: string | null | undefined): Record<string, unknown> | null {
  if (!s) return null;
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Result members as JSON Schema fragments, for the rows' `output` (the MCP output schemas): the
 * members beside `usp` and `messages` each tool's structuredContent carries.
 */
const object = { type: 'object' } as const;
const objects = { type: 'array', items: { type: 'object' } } as const;
export const Out = { object, objects, string: { type: 'string' }, array: { type: 'array' } } as const;
/** What a booking operation answers: the booking, and a credential for it when one was issued. */
export const BOOKING_OUTPUT = { booking: object, booking_scoped_credential: object };
/** What a waitlist entry operation answers. */
export const ENTRY_OUTPUT = { entry: object };
