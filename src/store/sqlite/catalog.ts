import type { CatalogRepo } from '../port.js';
import { catalogFeed } from '../shared/catalog-feed.js';
import { CATALOG_COLUMNS, json, toService } from '../shared/rows.js';
import type { Statements } from './statements.js';

export function sqliteCatalog(s: Statements): CatalogRepo {
  const all = s.prepare(`SELECT ${CATALOG_COLUMNS} FROM catalog ORDER BY id`);
  const upsert = s.prepare(
    `INSERT INTO catalog (${CATALOG_COLUMNS}) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET data = excluded.data, fingerprint = excluded.fingerprint,
     modified_ms = excluded.modified_ms, deleted = excluded.deleted`,
  );
  const page = s.prepare(
    `SELECT ${CATALOG_COLUMNS} FROM catalog WHERE (modified_ms > ? OR (modified_ms = ? AND id > ?)) ORDER BY modified_ms, id LIMIT ?`,
  );
  return {
    async all() {
      return (all.all() as any[]).map(toService);
    },
    async upsert(svc) {
      upsert.run(svc.id, json(svc.data), svc.fingerprint, svc.modified_ms, svc.deleted ? 1 : 0);
    },
    feed(afterMs, afterId, limit, locationId) {
      return catalogFeed(
        (ms, id, n) => (page.all(ms, ms, id, n) as any[]).map(toService),
        afterMs,
        afterId,
        limit,
        locationId,
      );
    },
  };
}
