import type { StoredService } from '../port.js';

/** A service is offered at a location when it names that location, or names none (offered everywhere). */
function serviceAtLocation(s: StoredService, locationId: string): boolean {
  const locs = (s.data.locations as Array<{ id?: string }> | undefined) ?? [];
  return locs.length === 0 || locs.some((l) => l.id === locationId);
}

/**
 * The catalog feed: services in ascending (modified_ms, id) after the given position, at most
 * `limit`, optionally only those at one location. `page` reads one keyset page from the database.
 * Location filtering happens after the keyset scan, so scanning goes on until the page is full.
 */
export async function catalogFeed(
  page: (afterMs: number, afterId: string, limit: number) => Promise<StoredService[]> | StoredService[],
  afterMs: number,
  afterId: string,
  limit: number,
  locationId?: string,
): Promise<StoredService[]> {
  const out: StoredService[] = [];
  let cursorMs = afterMs;
  let cursorId = afterId;
  for (;;) {
    const rows = await page(cursorMs, cursorId, limit);
    for (const s of rows) {
      if (!locationId || serviceAtLocation(s, locationId)) out.push(s);
      if (out.length === limit) return out;
    }
    if (rows.length < limit) return out;
    cursorMs = rows[rows.length - 1].modified_ms;
    cursorId = rows[rows.length - 1].id;
  }
}
