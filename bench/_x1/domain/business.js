/**
 * The business as the domain sees it: what the business file describes, after validation.
 * Times of day are local to the business time zone ("HH:MM", 24 h); instants are RFC 3339
 * strings or epoch milliseconds (UTC). Durations are ISO 8601 strings (e.g. "PT30M", "P30D").
 */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
export const DEFAULT_SETTINGS = {
    hold_ttl_seconds: 600,
    payment_ttl_seconds: 1800,
    manual_confirmation_ttl_seconds: 86400,
    waitlist_offer_ttl_seconds: 900,
    max_query_days: 31,
    max_active_holds_per_buyer: 3,
    max_waitlist_entries: 100,
    reminder_offset_seconds: 86400,
    public_url: 'http://localhost:8787',
};
//# sourceMappingURL=business.js.map