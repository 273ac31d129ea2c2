/**
 * The payment block's status on a booking (spec 5.5.1) as an explicit transition map, in the same
 * shape as the booking's: a move not listed here does not happen. Money collected can be refunded
 * in part or in full; a booking that owes more (a reschedule's difference, a late-cancellation fee)
 * goes back to pending; a full refund is final.
 */
export type PaymentStatus = 'not_required' | 'pending' | 'deposit_paid' | 'paid' | 'partially_refunded' | 'refunded';

export type PaymentMove =
  | 'pay' // everything due is paid
  | 'pay_deposit' // the deposit is paid, the rest is due at the service
  | 'owe' // more is due (a reschedule's difference or fee, a late-cancellation fee not covered)
  | 'refund_part' // some of what was collected is given back
  | 'refund_all'; // everything collected is given back

export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, Partial<Record<PaymentMove, PaymentStatus>>>> = {
  not_required: { owe: 'pending' },
  pending: {
    pay: 'paid',
    pay_deposit: 'deposit_paid',
    owe: 'pending',
    refund_part: 'partially_refunded',
    refund_all: 'refunded',
  },
  deposit_paid: { pay: 'paid', owe: 'pending', refund_part: 'partially_refunded', refund_all: 'refunded' },
  paid: { owe: 'pending', refund_part: 'partially_refunded', refund_all: 'refunded' },
  partially_refunded: { owe: 'pending', refund_part: 'partially_refunded', refund_all: 'refunded' },
  refunded: { refund_all: 'refunded' },
};

/** The status a move leads to, or null when the map forbids it. */
export function nextPaymentStatus(from: PaymentStatus, move: PaymentMove): PaymentStatus | null {
  return PAYMENT_TRANSITIONS[from][move] ?? null;
}
