/**
 * The refusal of a move a lifecycle's transition map forbids (spec-next 5.1.1's `invalid_transition`),
 * naming the status and the moves allowed from it. It is a business outcome (spec-next 5.1.1, 9.4.1,
 * 9.4.2: HTTP 200, `messages[]`, the resource as it is), thrown so that whatever the operation wrote
 * before finding out is rolled back; the pipeline answers it. A platform that negotiated a version
 * older than ours gets the pinned text's 409 instead (`asConflict`, DECISIONS D2).
 */
import { errorMessage, type Message } from '../../domain/index.js';
import { ProtocolError } from './errors.js';

export class RefusedMove extends Error {
  constructor(
    /** The `invalid_transition` message. */
    readonly outcome: Message,
    /** The answer's data: the resource unchanged (`booking`, `hold`). */
    readonly data: Record<string, unknown>,
    readonly currentStatus: string,
    readonly allowedMoves: readonly string[],
  ) {
    super(outcome.content);
    this.name = 'RefusedMove';
  }

  /** The pinned text's family (5.3.6: a 409 `booking_state_conflict` problem), for an older platform. */
  asConflict(): ProtocolError {
    return new ProtocolError('booking_state_conflict', this.outcome.content, {
      extra: { current_status: this.currentStatus, allowed_moves: [...this.allowedMoves] },
    });
  }
}

/**
 * `thing` is what moved ("booking", "hold"), `participle` what it could not be ("canceled"),
 * `wayOn` what to do instead once it is final; `data` the resource as it stands.
 */
export function invalidTransition(
  thing: string,
  status: string,
  allowed: readonly string[],
  participle: string,
  data: Record<string, unknown>,
  wayOn?: string,
): RefusedMove {
  const next =
    allowed.length > 0
      ? ` From ${status} it can be: ${allowed.join(', ')}.`
      : ` ${status} is final${wayOn ? `: ${wayOn}` : '.'}`;
  const message = errorMessage(
    'invalid_transition',
    `This ${thing} is ${status}; it cannot be ${participle}.${next}`,
    `$.${thing}.status`,
  );
  return new RefusedMove(message, structuredClone(data), status, allowed);
}
