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

function common(alias: string, kind: 'business' | 'service', f: RegistryFilter, d: RegistryDialect, p: Params): { where: string[]; score: string | null; dist: string | null } {
  const where: string[] = [];
  let dist: string | null = null;
  if (f.center && f.bbox) {
    // Virtual-only rows have no point, so every location filter leaves them out (spec 6.1, 6.3.1).
    where.push(`${alias}.lat IS NOT NULL`);
    where.push(d.geoWindow(alias, kind, [p.add(f.bbox.minLat), p.add(f.bbox.maxLat), p.add(f.bbox.minLng), p.add(f.bbox.maxLng)]));
    dist = d.distance(alias, p.add(f.center.lat), p.add(f.center.lng));
    where.push(`${dist} <= ${p.add(f.center.radiusKm)}`);
  }
  const terms = kind === 'business' ? 'registry_business_terms' : 'registry_service_terms';
  const key = kind === 'business' ? 'bid' : 'rid';
  if (f.verticals && f.verticals.length > 0) {
    if (kind === 'service') where.push(`${alias}.vertical IN (${f.verticals.map((v) => p.add(v)).join(', ')})`);
    else where.push(`${alias}.bid IN (SELECT bid FROM ${terms} WHERE term IN (${f.verticals.map((v) => p.add(`v:${v}`)).join(', ')}))`);
  }
  if (f.categories && f.categories.length > 0) {
    where.push(`${alias}.${key} IN (SELECT ${key} FROM ${terms} WHERE term IN (${f.categories.map((c) => p.add(`c:${c}`)).join(', ')}))`);
  }
  const scores: string[] = [];
  for (const t of f.tokens ?? []) {
    where.push(`${alias}.search_text LIKE ${p.add(`%${t}%`)}`);
    scores.push(`CASE WHEN ${alias}.name_text LIKE ${p.add(`%${t}%`)} THEN 1 ELSE 0 END`);
  }
  return { where, score: scores.length > 0 ? scores.join(' + ') : null, dist };
}

export function businessSearchSql(d: RegistryDialect, f: RegistryFilter, offset: number, limit: number): { text: string; values: unknown[] } {
  const p = new Params(d);
  const { where, score, dist } = common('b', 'business', f, d, p);
  where.unshift(`b.status = 'active'`);
  if (f.deploymentMode) where.push(`b.deployment_mode = ${p.add(f.deploymentMode)}`);
  const order = [...(score ? [`(${score}) DESC`] : []), ...(dist ? [`${dist} ASC`] : []), 'b.id ASC'].join(', ');
  const text = `SELECT b.* FROM registry_businesses b WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  return { text, values: p.values };
}

export function serviceSearchSql(d: RegistryDialect, f: RegistryFilter, offset: number, limit: number): { text: string; values: unknown[] } {
  const p = new Params(d);
  const { where, score, dist } = common('s', 'service', f, d, p);
  if (f.deploymentMode) where.push(`b.deployment_mode = ${p.add(f.deploymentMode)}`);
  if (f.price) {
    // Within one currency only: no conversion (spec 6.3.1).
    where.push(`s.currency = ${p.add(f.price.currency)}`);
    where.push(rangeSql('s.price_min', 's.price_max', f.price, p));
  }
  if (f.duration) where.push(rangeSql('s.dur_min', 's.dur_max', f.duration, p));
  where.push(`b.status = 'active'`);
  const order = [...(score ? [`(${score}) DESC`] : []), ...(dist ? [`${dist} ASC`] : []), 's.business_id ASC', 's.service_id ASC'].join(', ');
  const text =
    `SELECT s.*, b.id AS b_id FROM registry_services s JOIN registry_businesses b ON b.bid = s.bid ` +
    `WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  return { text, values: p.values };
}
