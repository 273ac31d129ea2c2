/**
 * Who may call an operation and what it addresses (spec 10.1), declared once for every layer: the
 * operations table, the security module that enforces it and the store that keeps credentials.
 */

/**
 * `public`: anyone; `privileged_platform`: an identified platform; `privileged_scoped`: the
 * platform that owns the resource, or the holder of its booking-scoped credential;
 * `business_only`: the business itself.
 */
export type AccessTier = 'public' | 'privileged_platform' | 'privileged_scoped' | 'business_only';

/** The kind of existing resource a scoped operation addresses. */
export type ResourceKind = 'booking' | 'hold' | 'waitlist_entry' | 'subscription';

/** The resources a booking-scoped credential can open (spec 10.1.6). */
export type CredentialKind = Exclude<ResourceKind, 'subscription'>;

/**
 * The OAuth scopes of identity linking this server grants and enforces (spec 10.2.4): `usp:booking`
 * holds, books and manages bookings and waitlist entries; `usp:history` reads the buyer's bookings.
 */
export const OAUTH_SCOPES = ['usp:booking', 'usp:history'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];
