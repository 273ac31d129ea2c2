/** The pure domain layer: business definitions, time helpers, slot ids and slot generation. */
export { WEEKDAYS, DEFAULT_SETTINGS } from './business.js';
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
} from './time.js';

export { encodeSlotId, decodeSlotId, slotIdEncoder, slotKey, slotTag, sameSlotId } from './slot-id.js';
export type { SlotIdParts, SlotRef } from './slot-id.js';
export { findSlotTagClash, resolveSlotId, slotTagIndex, serviceCombinations, SlotTagClash } from './slot-tags.js';
export type { SlotTagIndex } from './slot-tags.js';

export {
  generateSlots,
  findSlot,
  slotDurationMs,
  blockedInterval,
  openingHours,
  isCapacityType,
  selfResourceId,
} from './slots.js';
export type { Claim, SlotCandidate, SlotQuery, SlotState, OpeningHoursEntry } from './slots.js';
