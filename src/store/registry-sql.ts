/**
 * The registry searches as SQL, written once for both engines: each engine supplies its
 * placeholders, its spatial index window and its distance expression. Every hard filter of spec
 * 6.3.1 becomes a predicate here, so what matches is decided by the database, in one query.
 */
import type { RegistryFilter } from './registry-port.js';

export interface RegistryDialect {
  /** The placeholder for the n-th value (1-based). */
  placeholder(n: number): string;
  /** Rows of `alias` whose point may lie in the box (index-backed); `key` is its row-id column. */
  geoWindow(alias: string, kind: 'business' | 'service', box: [string, string, string, string]): string;
  /** Great-circle km from (lat, lng) placeholders to the row's point. */
  distance(alias: string, lat: string, lng: string): string;
  /**
   * Rows of `alias` that may contain every word, read from a text index: a superset of the rows the
   * LIKE predicates then decide (so the matching rule stays one rule). Null when no word can use the
   * index, or when the engine's LIKE predicates use their own index (PostgreSQL's trigram GIN).
   */
  textWindow?(
    alias: string,
    kind: 'business' | 'service',
    words: readonly string[],
    add: (v: unknown) => string,
  ): string | null;
  /**
   * A service category membership table whose rows carry `currency`, `price_min`, `price_max`,
   * `dur_min`, `dur_max`, so price and duration filters are checked there, before any service row
   * is read (SQLite). Without it the term table is used.
   */
  serviceCategoryTable?: string;
}

class Params {
  readonly values: unknown[] = [];
  constructor(private readonly d: RegistryDialect) {}
  add(v: unknown): string {
    this.values.push(v);
    return this.d.placeholder(this.values.length);
  }
}

function rangeSql(lo: string, hi: string, f: { min?: number; max?: number; match: string }, p: Params): string {
  const parts = [`${lo} IS NOT NULL`, `${hi} IS NOT NULL`];
  const min = f.min;
  const max = f.max;
  switch (f.match) {
    case 'overlap':
      if (max !== undefined) parts.push(`${lo} <= ${p.add(max)}`);
      if (min !== undefined) parts.push(`${hi} >= ${p.add(min)}`);
      break;
    case 'contained':
      if (min !== undefined) parts.push(`${lo} >= ${p.add(min)}`);
      if (max !== undefined) parts.push(`${hi} <= ${p.add(max)}`);
      break;
    case 'contains':
      // A bounded service interval never contains an unbounded side.
      if (min === undefined || max === undefined) return '1 = 0';
      parts.push(`${lo} <= ${p.add(min)}`, `${hi} >= ${p.add(max)}`);
      break;
    case 'equals':
      if (min === undefined || max === undefined) return '1 = 0';
      parts.push(`${lo} = ${p.add(min)}`, `${hi} = ${p.add(max)}`);
      break;
  }
  return parts.join(' AND ');
}

/** The price and duration predicates of a service search on the row alias `a` (none for a business search). */
function serviceRanges(a: string, f: RegistryFilter, p: Params, notIndexed = false): string[] {
  const where: string[] = [];
  if (f.price) {
    // Within one currency only: no conversion (spec 6.3.1). `+` (SQLite) keeps the planner from
    // driving from the price index when the category membership has already narrowed the rows.
    where.push(`${notIndexed ? '+' : ''}${a}.currency = ${p.add(f.price.currency)}`);
    where.push(rangeSql(`${a}.price_min`, `${a}.price_max`, f.price, p));
  }
  if (f.duration) where.push(rangeSql(`${a}.dur_min`, `${a}.dur_max`, f.duration, p));
  return where;
}

function common(
  alias: string,
  kind: 'business' | 'service',
  f: RegistryFilter,
  d: RegistryDialect,
  p: Params,
): { where: string[]; score: string | null; dist: string | null } {
  const where: string[] = [];
  let dist: string | null = null;
  if (f.center && f.bbox) {
    // Virtual-only rows have no point, so every location filter leaves them out (spec 6.1, 6.3.1).
    where.push(`${alias}.lat IS NOT NULL`);
    where.push(
      d.geoWindow(alias, kind, [
        p.add(f.bbox.minLat),
        p.add(f.bbox.maxLat),
        p.add(f.bbox.minLng),
        p.add(f.bbox.maxLng),
      ]),
    );
    dist = d.distance(alias, p.add(f.center.lat), p.add(f.center.lng));
    where.push(`${dist} <= ${p.add(f.center.radiusKm)}`);
  }
  const terms = kind === 'business' ? 'registry_business_terms' : 'registry_service_terms';
  const key = kind === 'business' ? 'bid' : 'rid';
  if (f.verticals && f.verticals.length > 0) {
    if (kind === 'service') where.push(`${alias}.vertical IN (${f.verticals.map((v) => p.add(v)).join(', ')})`);
    else
      where.push(
        `${alias}.bid IN (SELECT bid FROM ${terms} WHERE term IN (${f.verticals.map((v) => p.add(`v:${v}`)).join(', ')}))`,
      );
  }
  if (f.categories && f.categories.length > 0) {
    const inTerms = (col: string) => `${col} IN (${f.categories!.map((c) => p.add(`c:${c}`)).join(', ')})`;
    if (kind === 'service' && d.serviceCategoryTable) {
      // The same range predicates as on the service row (which still decides): a narrower candidate set.
      const ranges = serviceRanges('m', f, p);
      where.push(
        `${alias}.rid IN (SELECT m.rid FROM ${d.serviceCategoryTable} m WHERE ${[inTerms('m.term'), ...ranges].join(' AND ')})`,
      );
    } else where.push(`${alias}.${key} IN (SELECT ${key} FROM ${terms} WHERE ${inTerms('term')})`);
  }
  const scores: string[] = [];
  for (const t of f.tokens ?? []) {
    where.push(`${alias}.search_text LIKE ${p.add(`%${t}%`)}`);
    scores.push(`CASE WHEN ${alias}.name_text LIKE ${p.add(`%${t}%`)} THEN 1 ELSE 0 END`);
  }
  const text =
    f.tokens && f.tokens.length > 0 && d.textWindow ? d.textWindow(alias, kind, f.tokens, (v) => p.add(v)) : null;
  if (text) where.push(text);
  return { where, score: scores.length > 0 ? scores.join(' + ') : null, dist };
}

export function businessSearchSql(
  d: RegistryDialect,
  f: RegistryFilter,
  offset: number,
  limit: number,
): { text: string; values: unknown[] } {
  const p = new Params(d);
  const { where, score, dist } = common('b', 'business', f, d, p);
  where.unshift(`b.status = 'active'`);
  if (f.deploymentMode) where.push(`b.deployment_mode = ${p.add(f.deploymentMode)}`);
  const order = [...(score ? [`(${score}) DESC`] : []), ...(dist ? [`${dist} ASC`] : []), 'b.id ASC'].join(', ');
  const text = `SELECT b.* FROM registry_businesses b WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  return { text, values: p.values };
}

export function serviceSearchSql(
  d: RegistryDialect,
  f: RegistryFilter,
  offset: number,
  limit: number,
): { text: string; values: unknown[] } {
  const p = new Params(d);
  const { where, score, dist } = common('s', 'service', f, d, p);
  if (f.deploymentMode) where.push(`b.deployment_mode = ${p.add(f.deploymentMode)}`);
  where.push(...serviceRanges('s', f, p, Boolean(d.serviceCategoryTable && f.categories && f.categories.length > 0)));
  where.push(`b.status = 'active'`);
  const order = [
    ...(score ? [`(${score}) DESC`] : []),
    ...(dist ? [`${dist} ASC`] : []),
    's.business_id ASC',
    's.service_id ASC',
  ].join(', ');
  const text =
    `SELECT s.*, b.id AS b_id FROM registry_services s JOIN registry_businesses b ON b.bid = s.bid ` +
    `WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  return { text, values: p.values };
}
