export const BOOKING_TRANSITIONS = {
    pending: { confirm: 'confirmed', require_action: 'requires_action', cancel: 'canceled', expire: 'canceled', reschedule: 'pending' },
    requires_action: { complete_actions: 'confirmed', await_confirmation: 'pending', cancel: 'canceled', expire: 'canceled', reschedule: 'requires_action' },
    confirmed: { require_action: 'requires_action', cancel: 'canceled', reschedule: 'confirmed', start: 'in_progress', no_show: 'no_show' },
    in_progress: { complete: 'completed', no_show: 'no_show' },
    completed: {},
    no_show: {},
    canceled: {},
};
export const TERMINAL_STATUSES = ['completed', 'no_show', 'canceled'];
export function isTerminal(status) {
    return TERMINAL_STATUSES.includes(status);
}
/** The state a move leads to, or null when the state machine forbids it. */
export function nextStatus(from, move) {
    return BOOKING_TRANSITIONS[from][move] ?? null;
}
/** The moves allowed from a state, for error messages that say what can be done instead. */
export function allowedMoves(from) {
    return Object.keys(BOOKING_TRANSITIONS[from]);
}
/** Statuses in which a booking occupies its slot. */
export function holdsSlot(status) {
    return status === 'pending' || status === 'requires_action' || status === 'confirmed' || status === 'in_progress';
}
//# sourceMappingURL=booking-status.js.map