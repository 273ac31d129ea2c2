/**
 * The pure domain layer: business definitions, time helpers, slot ids and slot generation, the
 * booking state machine, pricing and policy terms, the records the store keeps and business outcomes.
 * Other layers import the domain through this file only.
 */
export {
  WEEKDAYS,
  DEFAULT_SETTINGS,
  BusinessFileSchema,
  DurationSchema,
  ServiceSchema,
  businessDocs,
} from './business.js';
export { minorAmount } from './business-fields.js';
export {
  CALENDAR_SECRET_ENV_MESSAGE,
  CALENDAR_SECRET_ENV_PREFIX,
  CalendarBuyerDataSchema,
  CalendarSourceSchema,
  bookingEventText,
  calendarKey,
  fetchableUrl,
  calendarSecretEnvMessage,
  calendarSecretPrefix,
  isCalendarSecretEnv,
} from './calendar-config.js';
export type { CalendarBuyerData, CalendarSource } from './calendar-config.js';
export { TEMPLATE_PATH_RULE, isTemplatePath, withoutUnsafeTemplates } from './mail-templates.js';
export {
  formatPath,
  serviceRules,
  wholeFileRules,
  DURATION_RULES_JSON_SCHEMA,
  SERVICE_RULES_JSON_SCHEMA,
} from './business-rules.js';
export type { PathSegment, IssueSink, ServiceFacts } from './business-rules.js';
export { checkBusinessDocument } from './business-check.js';
export { strandedBookings } from './stranded.js';
export type { BookedInterval, OtherClaim, StrandedBooking, StrandReason } from './stranded.js';
export type { BusinessIssue } from './business-check.js';
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
  DAY_MS,
  parseDuration,
  isDuration,
  formatDuration,
  isValidTimeZone,
  isIsoDate,
  isTimeOfDay,
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

export { generateSlots } from './slots.js';
export { findSlot } from './find-slot.js';
export { lowerBound } from './claim-index.js';
export type { Claim } from './claim-index.js';
export { clipToBookingWindow, slotDurationMs, blockedInterval, isCapacityType, selfResourceId } from './slot-query.js';
export type { SlotCandidate, SlotQuery, SlotState } from './slot-query.js';
export { openingHours } from './opening-hours.js';
export type { OpeningHoursEntry } from './opening-hours.js';

export type { AccessTier, ResourceKind, CredentialKind, OAuthScope } from './access.js';
export { OAUTH_SCOPES } from './access.js';

export { errorMessage, warningMessage, infoMessage } from './outcomes.js';
export type { Message } from './outcomes.js';

export {
  BOOKING_TRANSITIONS,
  BOOKING_ENTRY_EFFECTS,
  initialBookingStatus,
  isTerminal,
  nextStatus,
  allowedMoves,
  operationPermitted,
} from './booking-status.js';
export type { BookingEntryEffects, BookingMove, BookingOperation, BookingStatus } from './booking-status.js';
export { PAYMENT_TRANSITIONS, nextPaymentStatus } from './payment-status.js';
export type { PaymentMove, PaymentStatus } from './payment-status.js';
export { HOLD_ENTRY_EFFECTS, HOLD_TRANSITIONS, nextHoldStatus } from './hold-status.js';
export type { HoldEntryEffects, HoldMove, HoldStatus } from './hold-status.js';
export { WAITLIST_ENTRY_EFFECTS, WAITLIST_TRANSITIONS, nextWaitlistStatus } from './waitlist-status.js';
export type { WaitlistEntryEffects, WaitlistMove, WaitlistStatus } from './waitlist-status.js';
export { SUBSCRIPTION_ENTRY_EFFECTS, SUBSCRIPTION_TRANSITIONS, nextSubscriptionStatus } from './subscription-status.js';
export type { SubscriptionEntryEffects, SubscriptionMove, SubscriptionStatus } from './subscription-status.js';

export { moneyFacts, bookingDeadline } from './booking-facts.js';
export {
  paymentDeadline,
  paymentWindowProblem,
  shortestWindowSeconds,
  type PaymentWindowSettings,
} from './payment-window.js';
export type { BookingFactsInput, MoneyFacts, RefundState } from './booking-facts.js';
export {
  bookingPrice,
  amountDueAtBooking,
  cancellationTerms,
  rescheduleTerms,
  noShowFee,
  lateCancellationFee,
} from './pricing.js';
export { currencyDigits, formatMoney, majorAmount, parseMoney, type ParsedMoney } from './money.js';

export { paidBeforeAppointment, publishService, primaryCategory, searchableText } from './catalog.js';
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
  ProviderCheckout,
  ProviderMoney,
  ProviderRefund,
} from './records.js';
export { DISPUTE_ENTRY_EFFECTS, DISPUTE_TRANSITIONS, nextDisputeStatus } from './disputes.js';
export type { DisputeEntryEffects, DisputeMove, DisputeStatus } from './disputes.js';
export { bookingCalendar, bookingEventUid, calendarObject, icalText, isBookingEventUid } from './icalendar.js';
export { hasControlCharacter } from './plain-text.js';
export type { CalendarEvent } from './icalendar.js';
export {
  priceInterval,
  durationInterval,
  flatCategory,
  categoryTerms,
  distanceKm,
  boundingBox,
  queryTokens,
  MAX_RADIUS_KM,
} from './registry.js';
export type { RangeMatch, BoundingBox } from './registry.js';
export { mergeScheduleChanges, overlappingInterval } from './schedule-changes.js';
export type { ScheduleChange } from './schedule-changes.js';
export {
  ERASED_BUYER,
  erasePerson,
  foldName,
  isPerson,
  nameMatches,
  mentionsPerson,
  normalizeEmail,
  normalizePhone,
  personNeedles,
  personOf,
  phoneOnlyEmail,
} from './personal-data.js';
export type { Person } from './personal-data.js';
export { negotiateLocale } from './locale.js';
export { idFrom, uniqueIdFrom } from './id-from-name.js';
export { deepFreeze } from './freeze.js';
export { memoByString, memoPerObject } from './memo.js';
export { shareEqualHours } from './shared-hours.js';
