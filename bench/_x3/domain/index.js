/** The pure domain layer: business definitions, time helpers, slot ids and slot generation. */
export { WEEKDAYS, DEFAULT_SETTINGS } from './business.js';
export { MINUTE_MS, HOUR_MS, DAY_MS, parseDuration, isDuration, formatDuration, isValidTimeZone, isIsoDate, isTimeOfDay, timeOfDayToMinutes, minutesToTimeOfDay, weekdayOf, addDays, localDate, localToUtcMs, formatInstant, parseInstant, } from './time.js';
export { encodeSlotId, decodeSlotId, slotIdEncoder, slotKey } from './slot-id.js';
export { generateSlots, findSlot, slotDurationMs, blockedInterval, openingHours, isCapacityType, selfResourceId, } from './slots.js';
//# sourceMappingURL=index.js.map