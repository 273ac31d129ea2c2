/**
 * The business as the domain sees it: what the business file describes, after validation.
 * Times of day are local to the business time zone ("HH:MM", 24 h); instants are RFC 3339
 * strings or epoch milliseconds (UTC). Durations are ISO 8601 strings (e.g. "PT30M", "P30D").
 */

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A local opening interval on one day, "HH:MM" to "HH:MM" (closes > opens; "24:00" allowed as a close). */
export interface LocalInterval {
  opens: string;
  closes: string;
}

export type WeeklyHours = Partial<Record<Weekday, LocalInterval[]>>;

/** A dated override of the weekly hours: `hours: []` closes the whole day. */
export interface DatedException {
  date: string; // YYYY-MM-DD, local
  hours: LocalInterval[];
  reason?: string;
}

/** An absence: the resource is unavailable between two instants (RFC 3339 with offset). */
export interface TimeOff {
  start: string;
  end: string;
  reason?: string;
}

export type ResourceType = 'staff' | 'room' | 'equipment' | 'other';

export interface ResourceDef {
  id: string;
  type: ResourceType;
  name: string;
  location_id?: string;
  schedule: WeeklyHours;
  exceptions?: DatedException[];
  time_off?: TimeOff[];
}

export interface LocationDef {
  id: string;
  name: string;
  address?: string;
  coordinates?: { lat: number; lng: number };
}

/**
 * One requirement of a service: one resource of `type`, chosen among `resource_ids`.
 * A slot is one combination: exactly one resource per requirement.
 */
export interface ResourceRequirementDef {
  type: ResourceType;
  name?: string;
  selectable?: boolean;
  resource_ids: string[];
}

export type ServiceType = 'appointment' | 'group' | 'reservation' | 'rental' | 'field_service' | string;

/**
 * A service as the business file writes it: the published fields of the USP Service object
 * (less `business_id` and `availability_hint`, which the server computes) plus how it is delivered.
 * `resources` (the published ResourceRequirement list) and `locations` are derived from
 * `requirements` and `location_ids`.
 */
export interface ServiceDef {
  id: string;
  name: string;
  type: ServiceType;
  status?: 'active' | 'suspended' | 'archived';
  description?: string | { plain: string; markdown?: string; html?: string };
  categories?: Array<Record<string, unknown>>;
  duration: {
    fixed?: string;
    range?: { min: string; max: string; step?: string };
    undetermined?: true;
    buffer_before?: string;
    buffer_after?: string;
  };
  pricing: {
    model: 'fixed' | 'hourly' | 'per_person' | 'variable' | 'free';
    amount?: number;
    currency: string;
    price_range?: { min: number; max: number };
    deposit?: { type: 'fixed' | 'percentage'; value: number; refundable?: boolean };
  };
  channel: { type: 'at_business_location' | 'at_buyer_location' | 'virtual' | 'phone' | 'hybrid'; virtual_provider?: string; instructions?: string; service_area?: string };
  policies: {
    cancellation: { allowed: boolean; free_cancellation_until?: string; late_cancellation_fee?: number; no_cancellation_after?: string };
    rescheduling: { allowed: boolean; free_reschedule_until?: string; max_reschedules?: number; fee?: number };
    no_show?: { fee?: number; fee_percentage?: number; grace_period?: string };
    booking_window: { min_advance: string; max_advance: string; slot_interval: string };
    confirmation_mode: 'auto' | 'manual';
    requires_payment: boolean;
    payment_timing?: 'at_booking' | 'at_service' | 'deposit_required';
  };
  /** Group and reservation: spots per slot, and whether a full slot can be waitlisted. */
  capacity?: { min?: number; max: number; waitlist?: boolean };
  provider?: { name: string; url?: string };
  media?: Array<Record<string, unknown>>;
  rating?: { value: number; scale_max: number; scale_min?: number; count?: number };
  handle?: string;
  url?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  links?: Array<{ type: string; url: string }>;
  localized?: Record<string, Record<string, string>>;
  /** Delivery: which resources can deliver the service. Empty means the service is its own resource. */
  requirements: ResourceRequirementDef[];
  /** Locations where the service is offered (ids of `business.locations`). */
  location_ids?: string[];
  /** Optional weekly hours in which the service may start and end (e.g. a class timetable). */
  hours?: WeeklyHours;
}

/** Knobs of the running business; every one is also a CLI flag. */
export interface BusinessSettings {
  /** Hold time-to-live in seconds (spec suggests 5-10 minutes). */
  hold_ttl_seconds: number;
  /** How long a payment action stays open before the booking expires, in seconds. */
  payment_ttl_seconds: number;
  /** How long a manual-confirmation booking waits for the business, in seconds. */
  manual_confirmation_ttl_seconds: number;
  /** How long a waitlist offer can be accepted, in seconds. */
  waitlist_offer_ttl_seconds: number;
  /** Longest availability query range in days (longer answers range_too_wide). */
  max_query_days: number;
  /** Concurrent active holds allowed per platform and buyer for one service (spec 10.1.2). */
  max_active_holds_per_buyer: number;
  /** Most entries on one service's waitlist. */
  max_waitlist_entries: number;
  /**
   * Public origin the server is reachable at (profile endpoints, checkout links). Absent: the
   * address the server listens on (see docs/DECISIONS.md, "Hardening: a new user").
   */
  public_url?: string;
  /** `booking.reminder` goes out this long before the start (0 turns reminders off). */
  reminder_offset_seconds: number;
  /** Checkout page template; `{booking_id}` and `{action_id}` are replaced. */
  checkout_url_template?: string;
}

export interface BusinessDef {
  business: {
    id: string;
    name: string;
    timezone: string;
    currency: string;
    locations: LocationDef[];
  };
  settings: BusinessSettings;
  resources: ResourceDef[];
  services: ServiceDef[];
  /** Hashes (sha-256, hex) of API keys that act as the business itself. */
  admin_api_key_hashes?: string[];
  /** Pre-established platforms: an id and the sha-256 (hex) of the API key each presents. */
  platform_api_keys?: Array<{ id: string; sha256: string }>;
}

export const DEFAULT_SETTINGS: BusinessSettings = {
  hold_ttl_seconds: 600,
  payment_ttl_seconds: 1800,
  manual_confirmation_ttl_seconds: 86400,
  waitlist_offer_ttl_seconds: 900,
  max_query_days: 31,
  max_active_holds_per_buyer: 3,
  max_waitlist_entries: 100,
  reminder_offset_seconds: 86400,
};
