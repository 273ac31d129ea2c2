/**
 * How long a booking waits for its payment, relative to the appointment: the business's payment
 * window. A link stays open the shorter of `payment_ttl_seconds` after it is issued and until
 * `payment_due_before_start_seconds` before the start, but never less than
 * `payment_min_window_seconds` after it is issued (so a person who booked at night can pay when
 * they wake), and never past the start. Every payment action (booking, reschedule, a renewed link)
 * takes its expiry from here, and every text that states the window before booking words the same
 * three settings.
 */
import type { RefinementCtx } from 'zod';

/** The three settings of the payment window, in seconds (the business file's settings). */
export interface PaymentWindowSettings {
  payment_ttl_seconds: number;
  payment_due_before_start_seconds: number;
  payment_min_window_seconds: number;
}

/** The instant a payment link issued at `nowMs` for an appointment at `startMs` closes. */
export function paymentDeadline(s: PaymentWindowSettings, nowMs: number, startMs: number): number {
  const byLength = nowMs + s.payment_ttl_seconds * 1000;
  const byStart = startMs - s.payment_due_before_start_seconds * 1000;
  // A floor above the longest (flags override the checked file) is read as the longest.
  const floor = nowMs + shortestWindowSeconds(s) * 1000;
  return Math.min(Math.max(Math.min(byLength, byStart), floor), startMs);
}

/** The floor as applied: never longer than the longest window. */
export function shortestWindowSeconds(s: PaymentWindowSettings): number {
  return Math.min(s.payment_min_window_seconds, s.payment_ttl_seconds);
}

/** A settings problem of the window, or null: a floor longer than the window itself says nothing the owner meant. */
export function paymentWindowProblem(s: PaymentWindowSettings): string | null {
  if (s.payment_min_window_seconds > s.payment_ttl_seconds) {
    return 'payment_min_window_seconds must not be longer than payment_ttl_seconds (the shortest window cannot exceed the longest)';
  }
  return null;
}

/** The business file's check of the window (its settings' refinement). */
export function checkPaymentWindow(s: PaymentWindowSettings, ctx: RefinementCtx): void {
  const problem = paymentWindowProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', path: ['payment_min_window_seconds'], message: problem });
}
