/**
 * The row facts the operations that change one booking (named by `booking_id`) or one waitlist
 * entry (by `entry_id`) share: the record is the resource (the pipeline loads its owner for
 * access) and the change is written under its revision (If-Match), in the record's capability. The
 * platform-facing booking changes (cancel, reschedule, confirm-payment, update) add the scoped
 * access, the OAuth scope and the bookings rate bucket; the business's own moves are business-only;
 * a buyer's moves on a waitlist entry are scoped like the booking changes. Each operation's row
 * spreads one of them and adds the rest.
 */
import { z } from 'zod';
import { id } from './schemas.js';

const CHANGES_A_BOOKING = {
  resource: { kind: 'booking', key: 'booking_id' },
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
} as const;

export const PLATFORM_BOOKING_CHANGE = {
  ...CHANGES_A_BOOKING,
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  rate: { bucket: 'bookings' },
} as const;

export const BUSINESS_BOOKING_CHANGE = { ...CHANGES_A_BOOKING, access: 'business_only' } as const;

export const ENTRY_CHANGE = {
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.waitlist',
  mutating: true,
  conditional: true,
  writes: true,
} as const;

/** The input of an operation on one waitlist entry. */
export const BY_ENTRY = z.object({ entry_id: id('The waitlist entry id.') });

/** The row facts of the business's own reads (the admin lists): business-only, writing nothing. */
export const BUSINESS_READ = {
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: false,
} as const;

/**
 * The row facts of a buyer's write that makes a new record for its platform (a hold, a booking, a
 * waitlist entry): any authenticated platform, the booking scope for an OAuth token, a new
 * resource (201), replayable by idempotency key. Each row adds its capability and rate bucket.
 */
export const PLATFORM_CREATE = {
  access: 'privileged_platform',
  scopes: ['usp:booking'],
  mutating: true,
  conditional: false,
  writes: true,
  creates: true,
} as const;

/**
 * The row facts of a platform's read of one booking: its owner (or the business) only, with either
 * OAuth scope. Reading applies the expiry of a pending booking, which writes.
 */
export const PLATFORM_BOOKING_READ = {
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking', 'usp:history'],
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
} as const;

/** The row facts of the business's own writes that take no precondition (keys, notes, schedule changes, catalog edits). */
export const BUSINESS_WRITE = {
  access: 'business_only',
  mutating: true,
  conditional: false,
  writes: true,
} as const;

/**
 * The row facts of a dashboard form that opens an account's session (sign-in, the owner's first
 * setup): the dashboard door only, before anyone is signed in, writing the session.
 */
export const DASHBOARD_SESSION_FORM = {
  onlyDoor: 'dashboard',
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
} as const;
