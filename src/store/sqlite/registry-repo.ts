/**
 * The registry repository on SQLite: registrations and indexed services in plain tables, their
 * points in R*Tree tables (shipped with better-sqlite3), category and vertical terms in a side table
 * with an index, so a search by place reads only the index window around the point. Free text goes
 * through FTS5 trigram tables and a service category search through a membership table that also
 * carries the price and duration bounds (kept by triggers, migration 'Registry search indexes').
 */
import type Database from 'better-sqlite3';
import { distanceKm } from '../../domain/index.js';
import type { RegistryBusinessRow, RegistryRepo } from '../registry-port.js';
import { toRegistryBusiness, toRegistryService } from '../shared/registry-rows.js';
import { businessSearchSql, serviceSearchSql, type RegistryDialect } from '../registry-sql.js';

export const sqliteRegistryDialect: RegistryDialect = {
  placeholder: (n) => `@p${n}`,
  geoWindow: (alias, kind, [minLat, maxLat, minLng, maxLng]) =>
    kind === 'business'
      ? `${alias}.bid IN (SELECT bid FROM registry_business_geo WHERE max_lat >= ${minLat} AND min_lat <= ${maxLat} AND max_lng >= ${minLng} AND min_lng <= ${maxLng})`
      : `${alias}.rid IN (SELECT rid FROM registry_service_geo WHERE max_lat >= ${minLat} AND min_lat <= ${maxLat} AND max_lng >= ${minLng} AND min_lng <= ${maxLng})`,
  distance: (alias, lat, lng) => `registry_km(${lat}, ${lng}, ${alias}.lat, ${alias}.lng)`,
  // FTS5 trigram tables: a quoted word is a phrase of its consecutive trigrams, i.e. the word as a
  // substring (case folded). Words shorter than three characters have no trigram; LIKE alone decides them.
  textWindow: (alias, kind, words, add) => {
    const long = words.filter((w) => [...w].length >= 3);
    if (long.length === 0) return null;
    const table = kind === 'business' ? 'registry_business_fts' : 'registry_service_fts';
    const match = long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
    return `${alias}.${kind === 'business' ? 'bid' : 'rid'} IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ${add(match)})`;
  },
  serviceCategoryTable: 'registry_service_categories',
};

/** Values as the named parameters `@p1`, `@p2`, ... the dialect wrote (one value may appear twice). */
const named = (values: unknown[]): Record<string, unknown> =>
  Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]));

export function sqliteRegistryRepo(db: Database.Database): RegistryRepo {
  db.function('registry_km', { deterministic: true }, (lat1: unknown, lng1: unknown, lat2: unknown, lng2: unknown) =>
    lat2 === null || lng2 === null
      ? null
      : distanceKm({ lat: Number(lat1), lng: Number(lng1) }, { lat: Number(lat2), lng: Number(lng2) }),
  );
  const st = {
    bidOf: db.prepare('SELECT bid FROM registry_businesses WHERE id = ?'),
    insert: db.prepare(
      `INSERT INTO registry_businesses (id, profile_url, deployment_mode, status, owner, entry, lat, lng, verticals, categories, search_text, name_text, created_ms, last_indexed_ms, next_index_ms, failures)
       VALUES (@id, @profile_url, @deployment_mode, @status, @owner, @entry, @lat, @lng, @verticals, @categories, @search_text, @name_text, @created_ms, @last_indexed_ms, @next_index_ms, @failures)`,
    ),
    update: db.prepare(
      `UPDATE registry_businesses SET profile_url = @profile_url, deployment_mode = @deployment_mode, status = @status, owner = @owner, entry = @entry, lat = @lat, lng = @lng,
       verticals = @verticals, categories = @categories, search_text = @search_text, name_text = @name_text, created_ms = @created_ms, last_indexed_ms = @last_indexed_ms,
       next_index_ms = @next_index_ms, failures = @failures WHERE bid = @bid`,
    ),
    get: db.prepare('SELECT * FROM registry_businesses WHERE id = ?'),
    byUrl: db.prepare('SELECT * FROM registry_businesses WHERE profile_url = ?'),
    bTermsDel: db.prepare('DELETE FROM registry_business_terms WHERE bid = ?'),
    bTermAdd: db.prepare('INSERT OR IGNORE INTO registry_business_terms (bid, term) VALUES (?, ?)'),
    bGeoDel: db.prepare('DELETE FROM registry_business_geo WHERE bid = ?'),
    bGeoAdd: db.prepare(
      'INSERT INTO registry_business_geo (bid, min_lat, max_lat, min_lng, max_lng) VALUES (?, ?, ?, ?, ?)',
    ),
    bDel: db.prepare('DELETE FROM registry_businesses WHERE bid = ?'),
    sRids: db.prepare('SELECT rid FROM registry_services WHERE bid = ?'),
    sDel: db.prepare('DELETE FROM registry_services WHERE bid = ?'),
    sTermsDel: db.prepare('DELETE FROM registry_service_terms WHERE rid = ?'),
    sGeoDel: db.prepare('DELETE FROM registry_service_geo WHERE rid = ?'),
    sInsert: db.prepare(
      `INSERT INTO registry_services (bid, business_id, service_id, vertical, terms, search_text, name_text, currency, price_min, price_max, dur_min, dur_max, lat, lng, result, indexed_ms)
       VALUES (@bid, @business_id, @service_id, @vertical, @terms, @search_text, @name_text, @currency, @price_min, @price_max, @dur_min, @dur_max, @lat, @lng, @result, @indexed_ms)`,
    ),
    sTermAdd: db.prepare('INSERT OR IGNORE INTO registry_service_terms (rid, term) VALUES (?, ?)'),
    sGeoAdd: db.prepare(
      'INSERT INTO registry_service_geo (rid, min_lat, max_lat, min_lng, max_lng) VALUES (?, ?, ?, ?, ?)',
    ),
    services: db.prepare('SELECT * FROM registry_services WHERE business_id = ? ORDER BY service_id'),
    due: db.prepare(`SELECT * FROM registry_businesses WHERE next_index_ms <= ? ORDER BY next_index_ms, id LIMIT ?`),
    list: db.prepare('SELECT * FROM registry_businesses WHERE id > ? ORDER BY id LIMIT ?'),
  };
  const removeServices = (bid: number) => {
    for (const r of st.sRids.all(bid) as Array<{ rid: number }>) {
      st.sTermsDel.run(r.rid);
      st.sGeoDel.run(r.rid);
    }
    st.sDel.run(bid);
  };
  // Searches differ only in which filters are present: a few hundred statement shapes at most.
  const statements = new Map<string, Database.Statement>();
  const prepared = (text: string): Database.Statement => {
    let stmt = statements.get(text);
    if (!stmt) {
      if (statements.size >= 500) statements.clear();
      statements.set(text, (stmt = db.prepare(text)));
    }
    return stmt;
  };
  const bidOf = (id: string): number | undefined => (st.bidOf.get(id) as { bid: number } | undefined)?.bid;

  return {
    async put(b) {
      const row = {
        ...b,
        entry: JSON.stringify(b.entry),
        verticals: b.verticals.join('\n'),
        categories: b.categories.join('\n'),
      };
      let bid = bidOf(b.id);
      if (bid === undefined) bid = Number(st.insert.run(row).lastInsertRowid);
      else st.update.run({ ...row, bid });
      st.bTermsDel.run(bid);
      for (const v of b.verticals) st.bTermAdd.run(bid, `v:${v}`);
      for (const c of b.categories) st.bTermAdd.run(bid, `c:${c}`);
      st.bGeoDel.run(bid);
      if (b.lat !== null && b.lng !== null) st.bGeoAdd.run(bid, b.lat, b.lat, b.lng, b.lng);
    },
    async get(id) {
      const r = st.get.get(id);
      return r ? toRegistryBusiness(r) : null;
    },
    async byProfileUrl(url) {
      const r = st.byUrl.get(url);
      return r ? toRegistryBusiness(r) : null;
    },
    async remove(id) {
      const bid = bidOf(id);
      if (bid === undefined) return false;
      removeServices(bid);
      st.bTermsDel.run(bid);
      st.bGeoDel.run(bid);
      st.bDel.run(bid);
      return true;
    },
    async replaceServices(businessId, rows) {
      const bid = bidOf(businessId);
      if (bid === undefined) throw new Error(`no registration ${businessId}`);
      removeServices(bid);
      for (const s of rows) {
        const rid = Number(
          st.sInsert.run({
            ...s,
            bid,
            business_id: businessId,
            terms: s.terms.join('\n'),
            result: JSON.stringify(s.result),
          }).lastInsertRowid,
        );
        for (const t of s.terms) st.sTermAdd.run(rid, `c:${t}`);
        if (s.lat !== null && s.lng !== null) st.sGeoAdd.run(rid, s.lat, s.lat, s.lng, s.lng);
      }
    },
    async services(businessId) {
      return (st.services.all(businessId) as any[]).map(toRegistryService);
    },
    async searchBusinesses(f, offset, limit) {
      const { text, values } = businessSearchSql(sqliteRegistryDialect, f, offset, limit);
      return (prepared(text).all(named(values)) as any[]).map(toRegistryBusiness);
    },
    async searchServices(f, offset, limit) {
      const { text, values } = serviceSearchSql(sqliteRegistryDialect, f, offset, limit);
      const rows = prepared(text).all(named(values)) as any[];
      const businesses = new Map<string, RegistryBusinessRow>();
      for (const r of rows) if (!businesses.has(r.b_id)) businesses.set(r.b_id, toRegistryBusiness(st.get.get(r.b_id)));
      return rows.map((r) => ({ service: toRegistryService(r), business: businesses.get(r.b_id)! }));
    },
    async due(nowMs, limit) {
      return (st.due.all(nowMs, limit) as any[]).map(toRegistryBusiness);
    },
    async list(afterId, limit) {
      return (st.list.all(afterId, limit) as any[]).map(toRegistryBusiness);
    },
  };
}
