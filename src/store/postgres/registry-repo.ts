/**
 * The registry repository on PostgreSQL: the same tables as on SQLite, the points indexed by a
 * plain btree on (lat, lng) (no extension needed: the box narrows latitude through the index,
 * longitude and the exact distance are checked on those rows). Writes run inside the store's
 * transaction; a registration's rows are replaced under an advisory lock on its id.
 */
import type pg from 'pg';
import type { RegistryBusinessRow, RegistryRepo } from '../registry-port.js';
import { toRegistryBusiness, toRegistryService } from '../shared/registry-rows.js';
import { businessSearchSql, serviceSearchSql, type RegistryDialect } from '../registry-sql.js';

type Query = <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

export const postgresRegistryDialect: RegistryDialect = {
  placeholder: (n) => `$${n}`,
  geoWindow: (alias, _kind, [minLat, maxLat, minLng, maxLng]) =>
    `${alias}.lat BETWEEN ${minLat}::float8 AND ${maxLat}::float8 AND ${alias}.lng BETWEEN ${minLng}::float8 AND ${maxLng}::float8`,
  distance: (alias, lat, lng) =>
    `(2 * 6371.0088 * asin(least(1, sqrt(power(sin(radians(${alias}.lat - ${lat}::float8) / 2), 2) + cos(radians(${lat}::float8)) * cos(radians(${alias}.lat)) * power(sin(radians(${alias}.lng - ${lng}::float8) / 2), 2)))))`,
};

export function postgresRegistryRepo(q: Query, lockKey: (key: string) => Promise<void>): RegistryRepo {
  const bidOf = async (id: string): Promise<number | undefined> => {
    const r = await q<{ bid: string }>('SELECT bid FROM registry_businesses WHERE id = $1', [id]);
    return r.rows.length > 0 ? Number(r.rows[0].bid) : undefined;
  };
  const removeServices = async (bid: number) => {
    await q('DELETE FROM registry_service_terms WHERE rid IN (SELECT rid FROM registry_services WHERE bid = $1)', [
      bid,
    ]);
    await q('DELETE FROM registry_services WHERE bid = $1', [bid]);
  };
  return {
    async put(b) {
      await lockKey(`registry:${b.id}`);
      const values = [
        b.id,
        b.profile_url,
        b.deployment_mode,
        b.status,
        b.owner,
        JSON.stringify(b.entry),
        b.lat,
        b.lng,
        b.verticals.join('\n'),
        b.categories.join('\n'),
        b.search_text,
        b.name_text,
        b.created_ms,
        b.last_indexed_ms,
        b.next_index_ms,
        b.failures,
      ];
      const r = await q<{ bid: string }>(
        `INSERT INTO registry_businesses (id, profile_url, deployment_mode, status, owner, entry, lat, lng, verticals, categories, search_text, name_text, created_ms, last_indexed_ms, next_index_ms, failures)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (id) DO UPDATE SET profile_url = EXCLUDED.profile_url, deployment_mode = EXCLUDED.deployment_mode, status = EXCLUDED.status, owner = EXCLUDED.owner,
           entry = EXCLUDED.entry, lat = EXCLUDED.lat, lng = EXCLUDED.lng, verticals = EXCLUDED.verticals, categories = EXCLUDED.categories, search_text = EXCLUDED.search_text,
           name_text = EXCLUDED.name_text, created_ms = EXCLUDED.created_ms, last_indexed_ms = EXCLUDED.last_indexed_ms, next_index_ms = EXCLUDED.next_index_ms, failures = EXCLUDED.failures
         RETURNING bid`,
        values,
      );
      const bid = Number(r.rows[0].bid);
      await q('DELETE FROM registry_business_terms WHERE bid = $1', [bid]);
      const terms = [...new Set([...b.verticals.map((v) => `v:${v}`), ...b.categories.map((c) => `c:${c}`)])];
      if (terms.length > 0)
        await q(
          'INSERT INTO registry_business_terms (bid, term) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
          [bid, terms],
        );
    },
    async get(id) {
      const r = await q('SELECT * FROM registry_businesses WHERE id = $1', [id]);
      return r.rows.length > 0 ? toRegistryBusiness(r.rows[0]) : null;
    },
    async byProfileUrl(url) {
      const r = await q('SELECT * FROM registry_businesses WHERE profile_url = $1', [url]);
      return r.rows.length > 0 ? toRegistryBusiness(r.rows[0]) : null;
    },
    async remove(id) {
      await lockKey(`registry:${id}`);
      const bid = await bidOf(id);
      if (bid === undefined) return false;
      await removeServices(bid);
      await q('DELETE FROM registry_business_terms WHERE bid = $1', [bid]);
      await q('DELETE FROM registry_businesses WHERE bid = $1', [bid]);
      return true;
    },
    async replaceServices(businessId, rows) {
      await lockKey(`registry:${businessId}`);
      const bid = await bidOf(businessId);
      if (bid === undefined) throw new Error(`no registration ${businessId}`);
      await removeServices(bid);
      for (const s of rows) {
        const r = await q<{ rid: string }>(
          `INSERT INTO registry_services (bid, business_id, service_id, vertical, terms, search_text, name_text, currency, price_min, price_max, dur_min, dur_max, lat, lng, result, indexed_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING rid`,
          [
            bid,
            businessId,
            s.service_id,
            s.vertical,
            s.terms.join('\n'),
            s.search_text,
            s.name_text,
            s.currency,
            s.price_min,
            s.price_max,
            s.dur_min,
            s.dur_max,
            s.lat,
            s.lng,
            JSON.stringify(s.result),
            s.indexed_ms,
          ],
        );
        const terms = [...new Set(s.terms.map((t) => `c:${t}`))];
        if (terms.length > 0)
          await q(
            'INSERT INTO registry_service_terms (rid, term) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
            [Number(r.rows[0].rid), terms],
          );
      }
    },
    async services(businessId) {
      return (
        await q('SELECT * FROM registry_services WHERE business_id = $1 ORDER BY service_id', [businessId])
      ).rows.map(toRegistryService);
    },
    async searchBusinesses(f, offset, limit) {
      const { text, values } = businessSearchSql(postgresRegistryDialect, f, offset, limit);
      return (await q(text, values)).rows.map(toRegistryBusiness);
    },
    async searchServices(f, offset, limit) {
      const { text, values } = serviceSearchSql(postgresRegistryDialect, f, offset, limit);
      const rows = (await q(text, values)).rows;
      const ids = [...new Set(rows.map((r: any) => r.b_id as string))];
      const businesses = new Map<string, RegistryBusinessRow>();
      if (ids.length > 0)
        for (const r of (await q('SELECT * FROM registry_businesses WHERE id = ANY($1::text[])', [ids])).rows)
          businesses.set(r.id, toRegistryBusiness(r));
      return rows.map((r: any) => ({ service: toRegistryService(r), business: businesses.get(r.b_id)! }));
    },
    async due(nowMs, limit) {
      return (
        await q('SELECT * FROM registry_businesses WHERE next_index_ms <= $1 ORDER BY next_index_ms, id LIMIT $2', [
          nowMs,
          limit,
        ])
      ).rows.map(toRegistryBusiness);
    },
    async list(afterId, limit) {
      return (
        await q('SELECT * FROM registry_businesses WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit])
      ).rows.map(toRegistryBusiness);
    },
  };
}
