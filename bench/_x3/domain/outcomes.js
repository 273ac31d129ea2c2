export const OUTCOME_SEVERITY = {
    slot_unavailable: 'recoverable',
    hold_expired: 'recoverable',
    booking_not_found: 'recoverable',
    capacity_exceeded: 'recoverable',
    payment_expired: 'recoverable',
    price_mismatch: 'recoverable',
    validation_error: 'requires_buyer_input',
    booking_window_violated: 'requires_buyer_input',
    payment_amount_mismatch: 'requires_buyer_input',
    actions_pending: 'requires_buyer_input',
    payment_required: 'requires_buyer_input',
    reschedule_limit_reached: 'requires_buyer_review',
    cancellation_not_allowed: 'requires_buyer_review',
    reschedule_not_allowed: 'requires_buyer_review',
    waitlist_full: 'recoverable',
    offer_expired: 'recoverable',
    entry_not_found: 'recoverable',
    offer_already_accepted: 'recoverable',
    hold_not_found: 'recoverable',
    service_not_found: 'recoverable',
    subscription_not_found: 'recoverable',
    waitlist_not_available: 'recoverable',
    already_in_state: 'recoverable',
};
export function errorMessage(code, content, path) {
    const m = { type: 'error', code, content, severity: OUTCOME_SEVERITY[code] };
    if (path)
        m.path = path;
    return m;
}
export function warningMessage(code, content, path) {
    const m = { type: 'warning', code, content };
    if (path)
        m.path = path;
    return m;
}
export function infoMessage(code, content) {
    return { type: 'info', code, content };
}
//# sourceMappingURL=outcomes.js.map