import type { WebhookDelivery } from '../port.js';

/** How many due candidates to read so that, after skipping busy and repeated targets, `limit` can still be filled. */
export const candidateCount = (limit: number, busy: readonly string[]): number => limit * 4 + busy.length;

/**
 * One delivery per target at a time: from due candidates (in order), the first of each target that
 * is not in `busy`, at most `limit`. A target's next delivery waits until this one is answered.
 */
export function onePerTarget(
  candidates: readonly WebhookDelivery[],
  busy: readonly string[],
  limit: number,
): WebhookDelivery[] {
  const out: WebhookDelivery[] = [];
  const taken = new Set(busy);
  for (const d of candidates) {
    if (taken.has(d.target_url)) continue;
    taken.add(d.target_url);
    out.push(d);
    if (out.length === limit) break;
  }
  return out;
}
