/**
 * Every lifecycle in the domain is an explicit transition map: each legal move leads where the
 * protocol says, every other move is refused (null), and final states have no way out.
 */
import { describe, expect, test } from 'vitest';
import {
  BOOKING_ENTRY_EFFECTS,
  BOOKING_TRANSITIONS,
  PAYMENT_TRANSITIONS,
  isTerminal,
  nextPaymentStatus,
  type BookingStatus,
  DISPUTE_TRANSITIONS,
  HOLD_TRANSITIONS,
  initialBookingStatus,
  SUBSCRIPTION_TRANSITIONS,
  WAITLIST_TRANSITIONS,
  nextDisputeStatus,
  nextHoldStatus,
  nextStatus,
  nextSubscriptionStatus,
  nextWaitlistStatus,
} from '../../src/domain/index.js';

/** Every (from, move) pair, with where it leads or null when refused. */
function everyPair<S extends string, M extends string>(
  statuses: readonly S[],
  moves: readonly M[],
  next: (from: S, m: M) => S | null,
): string[] {
  const out: string[] = [];
  for (const from of statuses) for (const m of moves) out.push(`${from} --${m}--> ${next(from, m) ?? 'refused'}`);
  return out;
}

const refused = (pairs: string[]) => pairs.filter((p) => p.endsWith('refused')).length;

describe('the booking state machine allows exactly the moves of spec 5.1', () => {
  const statuses = [
    'pending',
    'requires_action',
    'confirmed',
    'in_progress',
    'completed',
    'no_show',
    'canceled',
  ] as const;
  const moves = [
    'confirm',
    'complete_actions',
    'await_confirmation',
    'require_action',
    'cancel',
    'expire',
    'reschedule',
    'start',
    'complete',
    'no_show',
  ] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const legal = everyPair(statuses, moves, nextStatus).filter((p) => !p.endsWith('refused'));
    expect(legal).toEqual([
      'pending --confirm--> confirmed',
      'pending --require_action--> requires_action',
      'pending --cancel--> canceled',
      'pending --expire--> canceled',
      'pending --reschedule--> pending',
      'requires_action --complete_actions--> confirmed',
      'requires_action --await_confirmation--> pending',
      'requires_action --cancel--> canceled',
      'requires_action --expire--> canceled',
      'requires_action --reschedule--> requires_action',
      'confirmed --require_action--> requires_action',
      'confirmed --cancel--> canceled',
      'confirmed --reschedule--> confirmed',
      'confirmed --start--> in_progress',
      'confirmed --no_show--> no_show',
      'in_progress --complete--> completed',
      'in_progress --no_show--> no_show',
    ]);
    expect(refused(everyPair(statuses, moves, nextStatus))).toBe(statuses.length * moves.length - legal.length);
    expect(Object.keys(BOOKING_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
  test('a confirmed booking cannot expire and a canceled one cannot be confirmed again', () => {
    expect(nextStatus('confirmed', 'expire')).toBeNull();
    expect(nextStatus('canceled', 'confirm')).toBeNull();
    for (const m of moves) expect(nextStatus('completed', m)).toBeNull();
  });
});

describe('the hold lifecycle: an active hold is released, expires or becomes a booking; nothing else moves', () => {
  const statuses = ['active', 'expired', 'released', 'converted'] as const;
  const moves = ['release', 'expire', 'convert'] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const pairs = everyPair(statuses, moves, nextHoldStatus);
    expect(pairs.filter((p) => !p.endsWith('refused'))).toEqual([
      'active --release--> released',
      'active --expire--> expired',
      'active --convert--> converted',
    ]);
    expect(refused(pairs)).toBe(9);
    expect(Object.keys(HOLD_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
  test('a released or expired hold cannot become a booking, and a converted one cannot be released', () => {
    expect(nextHoldStatus('released', 'convert')).toBeNull();
    expect(nextHoldStatus('expired', 'convert')).toBeNull();
    expect(nextHoldStatus('converted', 'release')).toBeNull();
  });
});

describe('the waitlist entry lifecycle of spec 11.1', () => {
  const statuses = ['waiting', 'offered', 'accepted', 'expired', 'declined', 'removed'] as const;
  const moves = ['offer', 'accept', 'decline', 'expire', 'leave'] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const pairs = everyPair(statuses, moves, nextWaitlistStatus);
    expect(pairs.filter((p) => !p.endsWith('refused'))).toEqual([
      'waiting --offer--> offered',
      'waiting --leave--> removed',
      'offered --accept--> accepted',
      'offered --decline--> declined',
      'offered --expire--> expired',
      'expired --leave--> removed',
      'declined --leave--> removed',
    ]);
    expect(refused(pairs)).toBe(30 - 7);
    expect(Object.keys(WAITLIST_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
  test('only an open offer can be accepted or declined, and an accepted entry cannot leave', () => {
    for (const s of statuses.filter((x) => x !== 'offered')) {
      expect(nextWaitlistStatus(s, 'accept')).toBeNull();
      expect(nextWaitlistStatus(s, 'decline')).toBeNull();
    }
    expect(nextWaitlistStatus('accepted', 'leave')).toBeNull();
    expect(nextWaitlistStatus('removed', 'leave')).toBeNull();
  });
});

describe('the feed subscription lifecycle of spec 3.12.2: paused and resumed, canceled for good', () => {
  const statuses = ['active', 'paused', 'canceled'] as const;
  const moves = ['pause', 'resume', 'cancel'] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const pairs = everyPair(statuses, moves, nextSubscriptionStatus);
    expect(pairs.filter((p) => !p.endsWith('refused'))).toEqual([
      'active --pause--> paused',
      'active --cancel--> canceled',
      'paused --resume--> active',
      'paused --cancel--> canceled',
    ]);
    expect(refused(pairs)).toBe(5);
    expect(Object.keys(SUBSCRIPTION_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
});

describe('the dispute lifecycle of spec 5.5.2: reviewed, then resolved once', () => {
  const statuses = ['opened', 'under_review', 'resolved_buyer', 'resolved_business'] as const;
  const moves = ['review', 'resolve_buyer', 'resolve_business'] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const pairs = everyPair(statuses, moves, nextDisputeStatus);
    expect(pairs.filter((p) => !p.endsWith('refused'))).toEqual([
      'opened --review--> under_review',
      'opened --resolve_buyer--> resolved_buyer',
      'opened --resolve_business--> resolved_business',
      'under_review --resolve_buyer--> resolved_buyer',
      'under_review --resolve_business--> resolved_business',
    ]);
    expect(refused(pairs)).toBe(7);
    expect(Object.keys(DISPUTE_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
});

describe('a new booking starts waiting for its payment, then for the business, else confirmed', () => {
  test('payment due wins over manual confirmation; neither means confirmed at once', () => {
    expect(initialBookingStatus(true, true)).toBe('requires_action');
    expect(initialBookingStatus(true, false)).toBe('requires_action');
    expect(initialBookingStatus(false, true)).toBe('pending');
    expect(initialBookingStatus(false, false)).toBe('confirmed');
  });
});

describe('what entering a booking status does is one table, beside the transition map', () => {
  test('confirmed raises booking.confirmed, stops waiting (no expiry), reminds a late booking at once and counts as confirmed once', () => {
    expect(BOOKING_ENTRY_EFFECTS.confirmed).toEqual({
      event: 'booking.confirmed',
      expiry: 'clear',
      pendingActions: 'keep',
      amountDue: 'keep',
      slot: 'keep',
      reminder: 'inside_window',
      confirmedOnce: true,
    });
  });
  test('every final status frees the slot, expires pending actions and withdraws the reminder; only final statuses free it', () => {
    for (const s of Object.keys(BOOKING_ENTRY_EFFECTS) as BookingStatus[]) {
      const fx = BOOKING_ENTRY_EFFECTS[s];
      expect([s, fx.slot === 'free', fx.pendingActions === 'expire', fx.reminder === 'cancel']).toEqual([
        s,
        isTerminal(s),
        isTerminal(s),
        isTerminal(s),
      ]);
    }
    expect(BOOKING_ENTRY_EFFECTS.canceled.event).toBe('booking.canceled');
    expect(BOOKING_ENTRY_EFFECTS.canceled.amountDue).toBe('zero');
    expect(BOOKING_ENTRY_EFFECTS.pending.expiry).toBe('manual_window');
  });
});

describe('the payment status map: collected money is refunded in part or in full, more can fall due, a full refund is final', () => {
  const statuses = ['not_required', 'pending', 'deposit_paid', 'paid', 'partially_refunded', 'refunded'] as const;
  const moves = ['pay', 'pay_deposit', 'owe', 'refund_part', 'refund_all'] as const;
  test('every legal move leads to its status; all others are refused', () => {
    const pairs = everyPair(statuses, moves, nextPaymentStatus);
    expect(pairs.filter((p) => !p.endsWith('refused'))).toEqual([
      'not_required --owe--> pending',
      'pending --pay--> paid',
      'pending --pay_deposit--> deposit_paid',
      'pending --owe--> pending',
      'pending --refund_part--> partially_refunded',
      'pending --refund_all--> refunded',
      'deposit_paid --pay--> paid',
      'deposit_paid --owe--> pending',
      'deposit_paid --refund_part--> partially_refunded',
      'deposit_paid --refund_all--> refunded',
      'paid --owe--> pending',
      'paid --refund_part--> partially_refunded',
      'paid --refund_all--> refunded',
      'partially_refunded --owe--> pending',
      'partially_refunded --refund_part--> partially_refunded',
      'partially_refunded --refund_all--> refunded',
      'refunded --refund_all--> refunded',
    ]);
    expect(Object.keys(PAYMENT_TRANSITIONS).sort()).toEqual([...statuses].sort());
  });
  test('nothing is paid twice and a refunded payment is not refunded in part', () => {
    expect(nextPaymentStatus('paid', 'pay')).toBeNull();
    expect(nextPaymentStatus('refunded', 'refund_part')).toBeNull();
    expect(nextPaymentStatus('not_required', 'refund_all')).toBeNull();
  });
});
