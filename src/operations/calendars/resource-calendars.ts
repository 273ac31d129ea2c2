/**
 * A resource's `calendars` changed through the admin operations: the addresses must pass the same
 * outbound rule as at start (https; loopback http only with --allow-loopback-profiles), and the
 * resources with a writable CalDAV calendar become the push targets in the edit's own transaction,
 * so a booking made right after the edit is queued for its calendar in every process. The poller
 * and push worker read the new calendars from the live business at their next pass.
 */
import { fetchableUrl, type BusinessDef } from '../../domain/index.js';
import { outboundPostProblem } from '../../security/index.js';
import type { Tx } from '../../store/index.js';

/** The field-by-field problems of the calendar addresses of one resource object (as the file writes it). */
export function calendarUrlIssues(
  object: Record<string, unknown>,
  allowLoopback: boolean,
): Array<{ field: string; message: string }> {
  const list = Array.isArray(object.calendars) ? (object.calendars as Array<{ url?: unknown }>) : [];
  return list.flatMap((c, i) => {
    const p = typeof c.url === 'string' ? outboundPostProblem(fetchableUrl(c.url), allowLoopback) : null;
    return p
      ? [
          {
            field: `calendars[${i}].url`,
            message: `${p}${p === 'must use https' ? ' (loopback only with --allow-loopback-profiles)' : ''}`,
          },
        ]
      : [];
  });
}

/** Make the push targets those of `def` (resources with a CalDAV calendar marked write). */
export async function syncPushTargets(tx: Tx, def: BusinessDef): Promise<void> {
  const targets = def.resources
    .filter((r) => (r.calendars ?? []).some((c) => c.type === 'caldav' && c.write === true))
    .map((r) => r.id);
  await tx.calendars.setPushTargets(targets);
}
