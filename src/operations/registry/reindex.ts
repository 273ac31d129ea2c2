/**
 * Keeping the index fresh and honest (spec 6.3, 6.7): registrations whose index is due are fetched
 * again (profile and catalog) and their services replaced; a business whose profile can no longer
 * be fetched or checked is retried with a growing pause, and removed after `maxFailures`
 * consecutive failures. Network first, then one short write per business.
 */
import type { RegistryBusinessRow, Store } from '../../store/index.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/clock.js';
import type { RegistryEnv } from './env.js';
import { fetchBusiness, registrationRow, serviceRows } from './indexing.js';
import type { RegistrationInput } from './schemas.js';

export interface ReindexReport {
  indexed: string[];
  failed: string[];
  removed: string[];
}

/** The registration input a stored row was made from (to rebuild the row with fresh index times). */
function inputOf(b: RegistryBusinessRow): RegistrationInput {
  const e = b.entry as Record<string, any>;
  return {
    profile_url: b.profile_url,
    deployment_mode: b.deployment_mode,
    name: e.name,
    description: e.description,
    verticals: e.verticals ?? [],
    categories: e.categories ?? [],
    location: e.location,
    timezone: e.timezone,
  };
}

/** Re-index every registration that is due (at most `limit` per call). */
export async function reindexDue(
  store: Store,
  env: RegistryEnv,
  clock: Clock,
  log: Logger,
  limit = 20,
): Promise<ReindexReport> {
  const report: ReindexReport = { indexed: [], failed: [], removed: [] };
  const due = await store.read((tx) => tx.registry.due(clock.now(), limit));
  for (const b of due) {
    try {
      const fetched = await fetchBusiness(env, b.profile_url, b.deployment_mode);
      const now = clock.now();
      await store.transaction(async (tx) => {
        const current = await tx.registry.get(b.id);
        if (!current) return; // deleted meanwhile
        const row = registrationRow(b.id, inputOf(current), {
          owner: current.owner,
          createdMs: current.created_ms,
          nowMs: now,
          nextIndexMs: now + env.reindexIntervalMs,
          indexed: true,
        });
        await tx.registry.put(row);
        await tx.registry.replaceServices(b.id, serviceRows(row, fetched.services, now));
      });
      report.indexed.push(b.id);
      env.indexed?.(b.id, fetched);
    } catch (err) {
      const failures = b.failures + 1;
      const now = clock.now();
      if (failures >= env.maxFailures) {
        await store.transaction((tx) => tx.registry.remove(b.id));
        report.removed.push(b.id);
        log.warn('registration removed: its profile could not be fetched or checked', {
          id: b.id,
          profile_url: b.profile_url,
          failures,
          error: String((err as Error).message ?? err),
        });
        continue;
      }
      // Retry sooner than a full interval, then back off: 5 min, 10 min, 20 min, ... up to the interval.
      const pause = Math.min(env.reindexIntervalMs, 5 * 60_000 * 2 ** (failures - 1));
      await store.transaction(async (tx) => {
        const current = await tx.registry.get(b.id);
        if (current) await tx.registry.put({ ...current, failures, next_index_ms: now + pause });
      });
      report.failed.push(b.id);
      log.warn('registration could not be re-indexed', {
        id: b.id,
        profile_url: b.profile_url,
        failures,
        error: String((err as Error).message ?? err),
      });
    }
  }
  return report;
}

/**
 * Store a registration and its services as given, without fetching anything: for the demo and
 * for benchmarks, never for callers (registration always fetches).
 */
export async function seedRegistration(
  store: Store,
  id: string,
  input: RegistrationInput,
  services: ReadonlyArray<Record<string, unknown>>,
  nowMs: number,
  nextIndexMs: number,
): Promise<void> {
  await store.transaction(async (tx) => {
    const row = registrationRow(id, input, { owner: null, createdMs: nowMs, nowMs, nextIndexMs, indexed: true });
    await tx.registry.put(row);
    await tx.registry.replaceServices(id, serviceRows(row, services, nowMs));
  });
}
