import type { CatalogRepo } from '../port.js';
import { catalogFeed } from '../shared/catalog-feed.js';
import { CATALOG_COLUMNS, json, toService } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgCatalog(s: PgSession): CatalogRepo {
  return {
    async all() {
      // Read-then-publish (catalog sync) from several processes starting together: one at a time.
      await s.lockKey('catalog');
      return (await s.rows(`SELECT ${CATALOG_COLUMNS} FROM catalog ORDER BY id`)).map(toService);
    },
    async upsert(svc) {
      await s.query(
        `INSERT INTO catalog (${CATALOG_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, fingerprint = EXCLUDED.fingerprint,
         modified_ms = EXCLUDED.modified_ms, deleted = EXCLUDED.deleted`,
        [svc.id, json(svc.data), svc.fingerprint, svc.modified_ms, svc.deleted],
      );
    },
    feed(afterMs, afterId, limit, locationId) {
      const page = async (ms: number, id: string, n: number) =>
        (
          await s.rows(
            `SELECT ${CATALOG_COLUMNS} FROM catalog
             WHERE (modified_ms > $1 OR (modified_ms = $1 AND id > $2)) ORDER BY modified_ms, id LIMIT $3`,
            [ms, id, n],
          )
        ).map(toService);
      return catalogFeed(page, afterMs, afterId, limit, locationId);
    },
  };
}
