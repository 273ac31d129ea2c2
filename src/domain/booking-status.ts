/**
 * The booking state machine (spec 5.1) as an explicit transition map: a move not listed here
 * does not happen. Terminal states have no way out.
 */
export type BookingStatus =
  | 'pending'
  | 'requires_action'
  | 'confirmed'
  | 'in_progress'
  | 'completed'
  | 'no_show'
  | 'canceled';

export type BookingMove =
  | 'confirm' // business approves a manual booking
  | 'complete_actions' // last pending action done (payment)
  | 'await_confirmation' // payment done, the business still has to confirm (manual mode)
  | 'require_action' // a new action is pending (e.g. reschedule needs more payment)
  | 'cancel' // buyer, platform or business cancels
  | 'expire' // expires_at passed with something still pending
  | 'reschedule' // same booking, new slot
  | 'start' // business marks the service started
  | 'complete' // business marks it done
  | 'no_show'; // business marks the buyer absent

/** The status a move leads to, per status; a move not listed is forbidden. */
export const BOOKING_TRANSITIONS: Readonly<Record<BookingStatus, Partial<Record<BookingMove, BookingStatus>>>> = {
  pending: {
    confirm: 'confirmed',
    require_action: 'requires_action',
    cancel: 'canceled',
    expire: 'canceled',
    reschedule: 'pending',
  },
  requires_action: {
    complete_actions: 'confirmed',
    await_confirmation: 'pending',
    cancel: 'canceled',
    expire: 'canceled',
    reschedule: 'requires_action',
  },
  confirmed: {
    require_action: 'requires_action',
    cancel: 'canceled',
    reschedule: 'confirmed',
    start: 'in_progress',
    no_show: 'no_show',
  },
  in_progress: { complete: 'completed', no_show: 'no_show' },
  completed: {},
  no_show: {},
  canceled: {},
};

/** The status a new booking starts in: waiting for a payment, for the business's approval, or confirmed at once. */
export function initialBookingStatus(paymentDue: boolean, manualConfirmation: boolean): BookingStatus {
  if (paymentDue) return 'requires_action';
  return manualConfirmation ? 'pending' : 'confirmed';
}

const TERMINAL_STATUSES: readonly BookingStatus[] = ['completed', 'no_show', 'canceled'];

export function isTerminal(status: BookingStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The state a move leads to, or null when the state machine forbids it. */
export function nextStatus(from: BookingStatus, move: BookingMove): BookingStatus | null {
  return BOOKING_TRANSITIONS[from][move] ?? null;
}

/** The moves allowed from a state, for error messages that say what can be done instead. */
export function allowedMoves(from: BookingStatus): BookingMove[] {
  return Object.keys(BOOKING_TRANSITIONS[from]) as BookingMove[];
}

/** Statuses in which a booking occupies its slot. */
export function holdsSlot(status: BookingStatus): boolean {
  return status === 'pending' || status === 'requires_action' || status === 'confirmed' || status === 'in_progress';
}

/**
 * What entering a status does, whichever operation made the move (a move that keeps the status,
 * such as a reschedule, enters nothing). The operations apply this table in one place
 * (operations/bookings/effects.ts); no operation writes these effects itself.
 * - `event`: the webhook event raised, after the booking is stored.
 * - `expiry`: `clear` drops `expires_at` and the claims' expiry (nothing more is waited for);
 *   `manual_window` gives the business its confirmation window (capped at the start); `keep` leaves it.
 * - `pendingActions`: `expire` closes every pending action (nothing more can be done on them).
 * - `amountDue`: `zero` when nothing more is owed on a pending payment (unless the operation settles it).
 * - `slot`: `free` removes the claims, revokes the booking's credentials and offers the place to the waitlist.
 * - `reminder`: `inside_window` sends the reminder at once when the booking is confirmed late;
 *   `cancel` drops the scheduled one.
 * - `confirmedOnce`: the booking has been confirmed at least once (a later manual payment does not
 *   ask the business again, and the calendar entry exists).
 */
export interface BookingEntryEffects {
  event?: string;
  expiry: 'clear' | 'manual_window' | 'keep';
  pendingActions: 'expire' | 'keep';
  amountDue: 'zero' | 'keep';
  slot: 'free' | 'keep';
  reminder: 'inside_window' | 'cancel' | 'keep';
  confirmedOnce: boolean;
}

const KEEP: BookingEntryEffects = {
  expiry: 'keep',
  pendingActions: 'keep',
  amountDue: 'keep',
  slot: 'keep',
  reminder: 'keep',
  confirmedOnce: false,
};
const ENDED: BookingEntryEffects = {
  ...KEEP,
  expiry: 'clear',
  pendingActions: 'expire',
  slot: 'free',
  reminder: 'cancel',
};

export const BOOKING_ENTRY_EFFECTS: Readonly<Record<BookingStatus, BookingEntryEffects>> = {
  pending: { ...KEEP, expiry: 'manual_window' },
  requires_action: KEEP,
  confirmed: { ...KEEP, event: 'booking.confirmed', expiry: 'clear', reminder: 'inside_window', confirmedOnce: true },
  in_progress: { ...KEEP, event: 'booking.service_started' },
  completed: { ...ENDED, event: 'booking.completed' },
  no_show: { ...ENDED, event: 'booking.no_show' },
  canceled: { ...ENDED, event: 'booking.canceled', amountDue: 'zero' },
};

/** The platform-facing operations on a booking whose legality depends on its status (spec 5.1.1). */
export type BookingOperation = 'confirm' | 'cancel' | 'reschedule' | 'confirm_payment' | 'update';

/**
 * Whether an operation is permitted from a status, read off the transition map: confirm,
 * cancel and reschedule when the map has their move (a confirmed booking's confirm is answered
 * idempotently), confirm-payment when a payment can complete the pending actions, update while the
 * booking is not final (it moves nothing). Everything else is refused with invalid_transition.
 */
export function operationPermitted(status: BookingStatus, op: BookingOperation): boolean {
  switch (op) {
    case 'confirm':
      return status === 'confirmed' || nextStatus(status, 'confirm') !== null;
    case 'cancel':
      return nextStatus(status, 'cancel') !== null;
    case 'reschedule':
      return nextStatus(status, 'reschedule') !== null;
    case 'confirm_payment':
      return nextStatus(status, 'complete_actions') !== null || nextStatus(status, 'await_confirmation') !== null;
    case 'update':
      return !isTerminal(status);
  }
}
