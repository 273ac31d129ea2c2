/**
 * The profile's health: our capability `dev.usp-server.health` (spec 2.5: vendor capabilities in
 * our own namespace, spec and schema on our own origin), published when the business reads busy
 * times from calendars. `status` is `healthy`, or `degraded` while a resource's calendar is stale
 * (no good read for longer than `--calendar-stale-hours`): its busy times may be out of date, so
 * availability may offer time the person is not free. Each stale resource is named with its last
 * good read (null when there was none); feed addresses and errors stay on the admin side.
 */
import { formatInstant } from '../domain/index.js';

export const HEALTH_CAPABILITY = 'dev.usp-server.health';

/** What the calendar sync says of itself (src/calendars' `calendarHealth`). */
export interface ProfileHealth {
  calendars: number;
  stale: ReadonlyArray<{ resource_id: string; last_ok_ms: number | null }>;
}

const ORIGIN = 'https://usp-server.dev';

/** The capability entry, or undefined when there is nothing to report on (no calendars). */
export function healthCapability(h: ProfileHealth | undefined, zone: string): Record<string, unknown> | undefined {
  if (!h || h.calendars === 0) return undefined;
  const byResource = new Map<string, number | null>();
  for (const s of h.stale) {
    const prev = byResource.get(s.resource_id);
    // The resource's oldest good read among its stale calendars (none at all wins).
    byResource.set(
      s.resource_id,
      prev === null || s.last_ok_ms === null ? null : Math.min(prev ?? s.last_ok_ms, s.last_ok_ms),
    );
  }
  return {
    version: '2026-12-02',
    spec: `${ORIGIN}/extensions/health`,
    schema: `${ORIGIN}/schemas/extensions/health.json`,
    extends: 'dev.usp-protocol.services.availability',
    status: byResource.size > 0 ? 'degraded' : 'healthy',
    calendars: [...byResource].map(([resource_id, ok]) => ({
      resource_id,
      status: 'stale',
      last_good_read_at: ok === null ? null : formatInstant(ok, zone),
    })),
  };
}
