/**
 * The pure domain layer: business definitions, time helpers, slot ids and slot generation, the
 * booking state machine, pricing and policy terms, the records the store keeps and business outcomes.
 * Other layers import the domain through this file only.
 */
export { WEEKDAYS, DEFAULT_SETTINGS, BusinessFileSchema, DurationSchema, ServiceSchema, businessDocs } from './business.js';
export { formatPath, serviceRules, wholeFileRules, ROOT_PATH, DURATION_RULES_JSON_SCHEMA, SERVICE_RULES_JSON_SCHEMA } from './business-rules.js';
export type { PathSegment, IssueSink, ServiceFacts } from './business-rules.js';
export type {
  Weekday,
  LocalInterval,
  WeeklyHours,
  DatedException,
  TimeOff,
  ResourceType,
  ResourceDef,
  LocationDef,
  ResourceRequirementDef,
  ServiceType,
  ServiceDef,
  BusinessSettings,
  BusinessDef,
} from './business.js';

export {
  MINUTE_MS,
  HOUR_MS,
  DAY_MS,
  parseDuration,
  isDuration,
  formatDuration,
  isValidTimeZone,
  isIsoDate,
  isTimeOfDay,
  timeOfDayToMinutes,
  minutesToTimeOfDay,
  weekdayOf,
  addDays,
  localDate,
  localToUtcMs,
  formatInstant,
  parseInstant,
  isoUtc,
} from './time.js';

export { encodeSlotId, decodeSlotId, slotIdEncoder, slotKey, slotTag, sameSlotId } from './slot-id.js';
export type { SlotIdParts, SlotRef } from './slot-id.js';
export { findSlotTagClash, resolveSlotId, slotTagIndex, serviceCombinations, SlotTagClash } from './slot-tags.js';
export type { SlotTagIndex } from './slot-tags.js';

export {
  generateSlots,
  lowerBound,
  bookingWindow,
  findSlot,
  slotDurationMs,
  blockedInterval,
  openingHours,
  isCapacityType,
  selfResourceId,
} from './slots.js';
export type { Claim, SlotCandidate, SlotQuery, SlotState, OpeningHoursEntry } from './slots.js';

export type { AccessTier, ResourceKind, CredentialKind, OAuthScope } from './access.js';
export { OAUTH_SCOPES } from './access.js';

export { errorMessage, warningMessage, infoMessage } from './outcomes.js';
export type { Message } from './outcomes.js';

export { BOOKING_TRANSITIONS, initialBookingStatus, isTerminal, nextStatus, allowedMoves } from './booking-status.js';
export type { BookingMove, BookingStatus } from './booking-status.js';
export { HOLD_TRANSITIONS, nextHoldStatus } from './hold-status.js';
export type { HoldMove, HoldStatus } from './hold-status.js';
export { WAITLIST_TRANSITIONS, nextWaitlistStatus } from './waitlist-status.js';
export type { WaitlistMove, WaitlistStatus } from './waitlist-status.js';
export { SUBSCRIPTION_TRANSITIONS, nextSubscriptionStatus } from './subscription-status.js';
export type { SubscriptionMove, SubscriptionStatus } from './subscription-status.js';

export { bookingPrice, amountDueAtBooking, cancellationTerms, rescheduleTerms, noShowFee, formatMoney } from './pricing.js';

export { publishService, primaryCategory, searchableText } from './catalog.js';
export type { PublishedService } from './catalog.js';

export type {
  Buyer,
  DeliveryAddress,
  Action,
  Booking,
  BookingRecord,
  HoldRecord,
  WaitlistRecord,
  SubscriptionRecord,
} from './records.js';
export { DISPUTE_TRANSITIONS, nextDisputeStatus } from './disputes.js';
export type { DisputeMove, DisputeStatus } from './disputes.js';
export { bookingCalendar } from './icalendar.js';
export { rangeMatches, priceInterval, durationInterval, flatCategory, categoryTerms, distanceKm, boundingBox, queryTokens, MAX_RADIUS_KM } from './registry.js';
export type { Interval, RangeMatch, BoundingBox } from './registry.js';
export { mergeScheduleChanges, overlappingInterval } from './schedule-changes.js';
export type { ScheduleChange } from './schedule-changes.js';
