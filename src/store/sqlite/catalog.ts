import type { CatalogRepo } from '../port.js';
import { catalogFeed } from '../shared/catalog-feed.js';
import { CATALOG_COLUMNS, json, toService } from '../shared/rows.js';
import type { Statements } from './statements.js';

const ALL = `SELECT ${CATALOG_COLUMNS} FROM catalog ORDER BY id`;
const UPSERT = `INSERT INTO catalog (${CATALOG_COLUMNS}) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET data = excluded.data, fingerprint = excluded.fingerprint,
     modified_ms = excluded.modified_ms, deleted = excluded.deleted`;
const PAGE = `SELECT ${CATALOG_COLUMNS} FROM catalog WHERE (modified_ms > ? OR (modified_ms = ? AND id > ?)) ORDER BY modified_ms, id LIMIT ?`;

export function sqliteCatalog(s: Statements): CatalogRepo {
  return new SqliteCatalog(s);
}

/** A class over the connection's statement cache, each statement prepared on its first use (./outbox.ts). */
class SqliteCatalog implements CatalogRepo {
  constructor(private readonly s: Statements) {}
  async all() {
    return (this.s.prepare(ALL).all() as any[]).map(toService);
  }
  async upsert(svc: Parameters<CatalogRepo['upsert']>[0]) {
    this.s.prepare(UPSERT).run(svc.id, json(svc.data), svc.fingerprint, svc.modified_ms, svc.deleted ? 1 : 0);
  }
  feed(...[afterMs, afterId, limit, locationId]: Parameters<CatalogRepo['feed']>) {
    const page = this.s.prepare(PAGE);
    return catalogFeed(
      (ms, id, n) => (page.all(ms, ms, id, n) as any[]).map(toService),
      afterMs,
      afterId,
      limit,
      locationId,
    );
  }
}
