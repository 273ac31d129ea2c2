import type { WebhookDelivery } from '../port.js';

/** How many due candidates to read so that, after skipping busy and repeated targets, `limit` can still be filled. */
export const candidateCount = (limit: number, busy: readonly string[]): number => limit * 4 + busy.length;

/**
 * One delivery per target at a time: from due candidates (in order), the first of each target that
 * is not in `busy`, at most `limit`. A target's next delivery waits until this one is answered.
 * `leftBehind`: some due delivery was not taken (its target busy or taken already, the limit reached,
 * or the candidates read may not have been all): whoever frees a lane should look again.
 */
export function onePerTarget(
  candidates: readonly WebhookDelivery[],
  busy: readonly string[],
  limit: number,
): ClaimedDeliveries {
  const out: WebhookDelivery[] = [];
  const taken = new Set(busy);
  let skipped = candidates.length >= candidateCount(limit, busy);
  for (let i = 0; i < candidates.length; i++) {
    const d = candidates[i];
    if (taken.has(d.target_url)) {
      skipped = true;
      continue;
    }
    taken.add(d.target_url);
    out.push(d);
    if (out.length === limit) {
      skipped ||= i < candidates.length - 1;
      break;
    }
  }
  // Not enumerable: the rows read (and compare) as the plain list they are.
  return Object.defineProperty(out, 'leftBehind', { value: skipped, enumerable: false }) as ClaimedDeliveries;
}

/** Deliveries claimed, and whether a due one was left behind (onePerTarget). */
export type ClaimedDeliveries = WebhookDelivery[] & { leftBehind?: boolean };
