/**
 * The refusal of a move a lifecycle's transition map forbids (spec 5.1.1's `invalid_transition`),
 * naming the status and the moves allowed from it; the error family stays the pinned version's
 * 409 (see DECISIONS).
 */
import { ProtocolError } from '../errors.js';

/**
 * `thing` is what moved ("booking", "hold"), `participle` what it could not be ("canceled"),
 * `wayOn` what to do instead once it is final.
 */
export function invalidTransition(thing: string, status: string, allowed: readonly string[], participle: string, wayOn?: string): ProtocolError {
  const next = allowed.length > 0 ? ` From ${status} it can be: ${allowed.join(', ')}.` : ` ${status} is final${wayOn ? `: ${wayOn}` : '.'}`;
  return new ProtocolError('booking_state_conflict', `This ${thing} is ${status}; it cannot be ${participle}.${next}`, {
    detailCode: 'invalid_transition',
    extra: { current_status: status, allowed_moves: [...allowed] },
  });
}
