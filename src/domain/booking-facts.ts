/**
 * The money and deadline facts of a booking, read from the booking object a platform receives and
 * from nothing else: what was paid, what is due now and by when, what is left for the appointment,
 * the fee and the refund. Every text that states them (the MCP result's text, the buyer's pages, the
 * mail) words these facts, so a text can never say something its structured result does not carry.
 */
import { isTerminal, type BookingStatus } from './booking-status.js';

/** The members of a booking the facts are read from (the wire object, as structuredContent carries it). */
export interface BookingFactsInput {
  status: string;
  expires_at?: string;
  payment?: {
    status?: string;
    timing?: string;
    amount?: number;
    currency?: string;
    amount_due?: number;
    deposit_amount?: number;
  };
  actions?: ReadonlyArray<{
    type: string;
    status: string;
    continue_url?: string;
    expires_at?: string;
    payment_context?: { amount_due: number; currency?: string };
  }>;
  cancellation?: { fee?: number; refund_amount?: number; canceled_by?: string };
}

export type RefundState = 'none' | 'requested' | 'partial' | 'full';

export interface MoneyFacts {
  currency: string | null;
  /** When the price is paid (payment.timing), or null when the booking carries no payment block. */
  timing: string | null;
  /** payment.status, or null. */
  status: string | null;
  /** The price (payment.amount), when the booking states it. */
  total: number | null;
  /** Paid online so far: the sum of the completed payment actions. */
  paid: number;
  /** The pending payment action: what to pay now, where and by when. */
  payNow: { amount: number; url: string | null; until: string | null } | null;
  /** Owed by the person outside a payment link (payment.amount_due while no action is pending: a fee). */
  owed: number;
  /** What is left to pay at the appointment (live bookings only; 0 otherwise). */
  atAppointment: number;
  /** The deposit (payment.deposit_amount), when there is one. */
  deposit: number | null;
  /** The cancellation fee and refund, when the booking was canceled. */
  fee: number | null;
  refund: number | null;
  /** Whether the refund has been made (payment.status refunded / partially_refunded) or only asked for. */
  refundState: RefundState;
}

/** The money facts of a booking object. */
export function moneyFacts(b: BookingFactsInput): MoneyFacts {
  const p = b.payment;
  const payActions = (b.actions ?? []).filter((a) => a.type === 'payment');
  const pending = payActions.find((a) => a.status === 'pending' && a.payment_context);
  const paid = payActions
    .filter((a) => a.status === 'completed')
    .reduce((n, a) => n + (a.payment_context?.amount_due ?? 0), 0);
  const payNow = pending
    ? {
        amount: pending.payment_context!.amount_due,
        url: pending.continue_url ?? null,
        until: pending.expires_at ?? null,
      }
    : null;
  const total = typeof p?.amount === 'number' ? p.amount : null;
  const owed = !pending && typeof p?.amount_due === 'number' && p.amount_due > 0 ? p.amount_due : 0;
  // A booking that still happens (not final): what is left to pay is paid at the appointment.
  const live = !isTerminal(b.status as BookingStatus);
  const atAppointment = live && total !== null ? Math.max(0, total - paid - (payNow?.amount ?? 0) - owed) : 0;
  const c = b.status === 'canceled' ? b.cancellation : undefined;
  const refund = typeof c?.refund_amount === 'number' ? c.refund_amount : null;
  let refundState: RefundState = 'none';
  if (p?.status === 'refunded') refundState = 'full';
  else if (p?.status === 'partially_refunded') refundState = 'partial';
  else if (refund && refund > 0) refundState = 'requested';
  return {
    currency: pending?.payment_context?.currency ?? p?.currency ?? null,
    timing: p?.timing ?? null,
    status: p?.status ?? null,
    total,
    paid,
    payNow,
    owed,
    atAppointment,
    deposit: typeof p?.deposit_amount === 'number' ? p.deposit_amount : null,
    fee: c ? (c.fee ?? 0) : null,
    refund,
    refundState,
  };
}

/** The deadline a booking waits on, and what it waits for: the person's payment or the business's answer. */
export function bookingDeadline(b: BookingFactsInput): { kind: 'payment' | 'confirmation'; at: string } | null {
  const m = moneyFacts(b);
  if (b.status === 'requires_action' && m.payNow?.until) return { kind: 'payment', at: m.payNow.until };
  if (b.status === 'pending' && b.expires_at) return { kind: 'confirmation', at: b.expires_at };
  return null;
}
