/**
 * Many businesses on one PostgreSQL (issue 39, item 2): the two designs measured side by side, each
 * in a database of its own created for the run and dropped after it.
 *
 *   shared:  one set of tables, every table keyed by business (a `business_id` column leading every
 *            primary key, unique constraint and index), row-level security ENABLED and FORCED (the
 *            owner the application connects as is bound too), the business set per transaction with
 *            set_config('usp.business', id, true), never per session.
 *   schemas: a schema per business holding the store's real migrations, the business chosen per
 *            transaction with set_config('search_path', schema, true).
 *
 * Both use the store's real migrations (dist/store/postgres/migrations.js). The keyed tables are
 * generated from them by src/store/postgres/business-keyed.ts: the migrations run once into a
 * template schema, then each table is copied with a `business_id` column put first in every key and
 * index, and each trigger carried with its business-aware function (the transaction measured here
 * writes `holds`, which has none; the figures in DECISIONS were taken before triggers were carried).
 * Generated keys draw from one sequence per table for all businesses. The registry's tables (its rows are businesses of other
 * deployments, not one business's data) are not copied; a schema per business does carry them,
 * since the store's migrations create them, which slightly favours the shared design's counts.
 *
 * The application runs as a role that is neither superuser nor BYPASSRLS (superusers skip row-level
 * security even when it is forced); the URL's user (a superuser on the test cluster) only creates the
 * role, the two databases and the extensions.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { keyedSchemaSql } from '../dist/store/postgres/business-keyed.js';
import { POSTGRES_MIGRATIONS } from '../dist/store/postgres/migrations.js';
import { fmt, fmtMb, fmtMs, msSince, now, summarize } from './lib.mjs';

const APP_ROLE = 'usp_tenancy_app';
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** A URL for another database and user on the same server. */
function urlFor(base, database, user, options) {
  const u = new URL(base);
  u.pathname = `/${database}`;
  if (user) u.username = user;
  u.search = '';
  const c = { connectionString: u.toString() };
  if (options) c.options = options;
  return c;
}

async function connect(cfg) {
  const c = new pg.Client(cfg);
  await c.connect();
  return c;
}

/** Backend memory of the connection: its memory contexts (relcache and catcache live in CacheMemoryContext) and its private RSS. */
export async function backendMemory(c) {
  const r = (
    await c.query(`SELECT pg_backend_pid() AS pid, sum(total_bytes)::bigint AS total,
      (sum(total_bytes) FILTER (WHERE name = 'CacheMemoryContext' OR parent = 'CacheMemoryContext'))::bigint AS cache
      FROM pg_backend_memory_contexts`)
  ).rows[0];
  let rssAnon = Number.NaN;
  try {
    const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${r.pid}/status`, 'utf8'));
    if (m) rssAnon = Number(m[1]) * 1024;
  } catch {
    // another machine, or /proc not readable: contexts only
  }
  return { total: Number(r.total), cache: Number(r.cache), rssAnon };
}

/** Rows and size of this database's system catalog (the cluster-wide catalogs, shared with other databases, left out). */
export async function catalogSize(c) {
  const r = (
    await c.query(`SELECT (SELECT count(*) FROM pg_class)::bigint AS classes, (SELECT count(*) FROM pg_attribute)::bigint AS attributes,
      pg_database_size(current_database())::bigint AS db,
      (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r' AND NOT c.relisshared)::bigint AS catalog`)
  ).rows[0];
  return { classes: Number(r.classes), attributes: Number(r.attributes), db: Number(r.db), catalog: Number(r.catalog) };
}

const businessId = (i) => `biz-${String(i).padStart(6, '0')}`;
const schemaName = (i) => `b_${i}`;

/** The seed each business gets at provisioning: a few services in `catalog` and its definition version. */
export function seedSql() {
  const rows = [0, 1, 2, 3, 4]
    .map((k) => `('svc-${k}', '{"name":"Service ${k}","duration":"PT${30 + k * 15}M"}', 'fp${k}', 1, FALSE)`)
    .join(', ');
  return `INSERT INTO catalog (id, data, fingerprint, modified_ms, deleted) VALUES ${rows};
    INSERT INTO definition_version (one, version) VALUES (1, 1);`;
}

const READ = 'SELECT id, data FROM catalog WHERE deleted = FALSE ORDER BY id LIMIT 20';
const INSERT_HOLD = `INSERT INTO holds (id, service_id, status, principal, expires_at_ms, data) VALUES ($1, 'svc-1', 'active', 'bench', $2, '{}')`;

/** One small request transaction: set the business, read its services, write a hold. */
export async function smallTx(c, design, i, seq) {
  await c.query('BEGIN');
  if (design === 'shared') await c.query(`SELECT set_config('usp.business', $1, true)`, [businessId(i)]);
  else await c.query(`SELECT set_config('search_path', $1, true)`, [schemaName(i)]);
  const rows = (await c.query(READ)).rows;
  if (rows.length !== 5) throw new Error(`${design}: business ${i} read ${rows.length} services, not 5`);
  await c.query(INSERT_HOLD, [`h-${process.pid}-${seq}`, 1e12 + seq]);
  await c.query('COMMIT');
}

/** The migrations as one script for a fresh schema (what the store's runner applies, in one transaction here). */
export const MIGRATION_SCRIPT = `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL);
${POSTGRES_MIGRATIONS.join(';\n')};
INSERT INTO schema_migrations (version, applied_ms) SELECT g, 0 FROM generate_series(1, ${POSTGRES_MIGRATIONS.length}) g;`;

/** The keyed copy of every business table of `tpl` in `app` (src/store/postgres/business-keyed.ts). Returns the number of tables. */
export async function keyedFromTemplate(c) {
  const sql = await keyedSchemaSql(c, 'tpl', 'app');
  await c.query(`BEGIN; ${sql} COMMIT;`);
  return (sql.match(/^CREATE TABLE /gm) ?? []).length;
}

/** Runs `serve` in a loop while `work` runs (and at least `minMs`); returns the latencies served meanwhile. */
export async function whileServing(serve, work, minMs) {
  const lat = [];
  let done = false;
  let seq = 0;
  const loop = (async () => {
    const t0 = Date.now();
    while (!done || Date.now() - t0 < minMs) {
      const t = now();
      await serve(seq++);
      lat.push(msSince(t));
    }
  })();
  const t = now();
  try {
    await work();
  } finally {
    done = true;
  }
  const workMs = msSince(t);
  await loop;
  return { workMs, lat };
}

export async function runPostgres({ quick, url }) {
  const n = Number(process.env.USP_BENCH_TENANTS ?? (quick ? 10 : 10000));
  const touch = Math.min(n, quick ? 10 : 1000);
  const requests = quick ? 40 : 2000;
  const poolSize = 4;
  const loadAtStart = load();
  const admin = await connect({ connectionString: url });
  const dbs = { shared: `usp_tenancy_shared_${process.pid}`, schemas: `usp_tenancy_schemas_${process.pid}` };
  const out = { n, touch, requests, poolSize };
  const clients = [];
  try {
    await admin.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS; END IF; END $$`);
    for (const db of Object.values(dbs)) {
      await admin.query(`CREATE DATABASE ${db} OWNER ${APP_ROLE}`);
      const su = await connect(urlFor(url, db));
      await su.query(`CREATE EXTENSION btree_gist WITH SCHEMA public; CREATE EXTENSION pg_trgm WITH SCHEMA public;
        GRANT SELECT ON pg_backend_memory_contexts TO ${APP_ROLE}; GRANT EXECUTE ON FUNCTION pg_get_backend_memory_contexts() TO ${APP_ROLE};`);
      await su.end();
    }
    const open = async (db, options) => {
      const c = await connect(urlFor(url, db, APP_ROLE, options));
      clients.push(c);
      return c;
    };

    // ---- shared tables keyed by business ------------------------------------------------------
    const s = await open(dbs.shared, '-c search_path=app');
    let t = now();
    await s.query(
      `CREATE SCHEMA tpl; SET search_path = tpl; BEGIN; ${MIGRATION_SCRIPT} COMMIT; CREATE SCHEMA app; SET search_path = app;`,
    );
    out.sharedTables = await keyedFromTemplate(s);
    // The template stays: the keyed tables' generated keys draw from its sequences (one per table).
    out.sharedMigrateMs = msSince(t);
    const seedKeyed = seedSql();
    t = now();
    for (let i = 0; i < n; i++) {
      await s.query(`BEGIN; SELECT set_config('usp.business', '${businessId(i)}', true); ${seedKeyed} COMMIT;`);
    }
    out.sharedProvisionMs = msSince(t);
    out.sharedCatalog = await catalogSize(s);

    // ---- a schema per business ----------------------------------------------------------------
    const b = await open(dbs.schemas);
    const perSchema = [];
    const seed = seedSql();
    t = now();
    for (let i = 0; i < n; i++) {
      const ti = now();
      await b.query(
        `BEGIN; CREATE SCHEMA ${schemaName(i)}; SET LOCAL search_path = ${schemaName(i)}; ${MIGRATION_SCRIPT} ${seed} COMMIT;`,
      );
      perSchema.push(msSince(ti));
      if (i % 1000 === 999) {
        // Catalog growth as the schemas are added (also a partial answer should a long run be cut short).
        const point = { schemas: i + 1, ms: msSince(t), ...(await catalogSize(b)), load: load() };
        (out.schemaCheckpoints ??= []).push(point);
        if (process.env.USP_BENCH_PROGRESS) process.stderr.write(`${JSON.stringify(point)}\n`);
      }
    }
    out.schemasProvisionMs = msSince(t);
    out.schemaFirst = summarize(perSchema.slice(0, Math.min(100, n)));
    out.schemaLast = summarize(perSchema.slice(-Math.min(100, n)));
    out.schemasCatalog = await catalogSize(b);
    out.schemaTables = Number(
      (await b.query(`SELECT count(*) AS c FROM pg_tables WHERE schemaname = 'b_0'`)).rows[0].c,
    );

    // ---- the cost of a small transaction at N: a pool of connections, businesses drawn at random ----
    for (const design of ['shared', 'schemas']) {
      const pool = [];
      for (let k = 0; k < poolSize; k++)
        pool.push(
          await open(
            design === 'shared' ? dbs.shared : dbs.schemas,
            design === 'shared' ? '-c search_path=app' : undefined,
          ),
        );
      const lat = { random: [], hot: [] };
      let seq = design === 'shared' ? 0 : 1e7;
      for (const mode of ['random', 'hot']) {
        for (let r = 0; r < requests; r++) {
          const i = mode === 'random' ? Math.floor(Math.random() * n) : r % Math.min(10, n);
          const ti = now();
          await smallTx(pool[r % poolSize], design, i, seq++);
          lat[mode].push(msSince(ti));
        }
      }
      out[`${design}Tx`] = { random: summarize(lat.random), hot: summarize(lat.hot) };
    }

    // ---- backend memory after touching K businesses in one connection -------------------------
    for (const design of ['shared', 'schemas']) {
      const c = await open(
        design === 'shared' ? dbs.shared : dbs.schemas,
        design === 'shared' ? '-c search_path=app' : undefined,
      );
      await smallTx(c, design, 0, 2e7);
      const before = await backendMemory(c);
      for (let i = 1; i <= touch; i++) await smallTx(c, design, i % n, 2e7 + (design === 'shared' ? 0 : 1e6) + i);
      const after = await backendMemory(c);
      out[`${design}Mem`] = { before, after };
    }

    // ---- a migration while serving: one column added to every business's `holds` ---------------
    const srv = await open(dbs.shared, '-c search_path=app');
    const mig = await open(dbs.shared, '-c search_path=app');
    out.sharedAlter = await whileServing(
      (q) => smallTx(srv, 'shared', Math.floor(Math.random() * n), 3e7 + q),
      () => mig.query(`SET lock_timeout = '2s'; ALTER TABLE holds ADD COLUMN bench_note TEXT`),
      300,
    );
    const srvB = await open(dbs.schemas);
    const migB = await open(dbs.schemas);
    await migB.query(`SET lock_timeout = '2s'`);
    out.schemasAlter = await whileServing(
      (q) => smallTx(srvB, 'schemas', Math.floor(Math.random() * n), 4e7 + q),
      async () => {
        for (let i = 0; i < n; i++) await migB.query(`ALTER TABLE ${schemaName(i)}.holds ADD COLUMN bench_note TEXT`);
      },
      300,
    );
    out.schemasCatalogAfterAlter = await catalogSize(b);
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    for (const db of Object.values(dbs))
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
  out.load = `${loadAtStart} at start, ${load()} at end`;
  return out;
}

/** The report's section for PostgreSQL from runPostgres's figures. */
export function postgresSection(r) {
  const perBiz = (v) => fmtMs(v / r.n);
  const memDelta = (m, key) => (m.after[key] - m.before[key]) / r.touch;
  const kb = (v) => (Number.isNaN(v) ? 'n/a' : `${fmt(v / 1024, 1)} KB`);
  const p = (s) => `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`;
  const rows = [
    ['tables per business (or keyed, shared)', String(r.sharedTables), String(r.schemaTables)],
    ['schema migration, once', fmtMs(r.sharedMigrateMs), '–'],
    [
      `provision all ${fmt(r.n, 0)} businesses`,
      `${fmt(r.sharedProvisionMs / 1000, 1)} s (${perBiz(r.sharedProvisionMs)} each)`,
      `${fmt(r.schemasProvisionMs / 1000, 1)} s (${perBiz(r.schemasProvisionMs)} each)`,
    ],
    [
      'one business provisioned, first 100 / last 100 (p50)',
      '–',
      `${fmtMs(r.schemaFirst.p50)} / ${fmtMs(r.schemaLast.p50)}`,
    ],
    ['pg_class rows', fmt(r.sharedCatalog.classes, 0), fmt(r.schemasCatalog.classes, 0)],
    ['pg_attribute rows', fmt(r.sharedCatalog.attributes, 0), fmt(r.schemasCatalog.attributes, 0)],
    ['system catalog size', fmtMb(r.sharedCatalog.catalog), fmtMb(r.schemasCatalog.catalog)],
    ['database size', fmtMb(r.sharedCatalog.db), fmtMb(r.schemasCatalog.db)],
    [
      "add a column to every business's `holds` while serving",
      fmtMs(r.sharedAlter.workMs),
      `${fmt(r.schemasAlter.workMs / 1000, 1)} s (${fmtMs(r.schemasAlter.workMs / r.n)} each)`,
    ],
    [
      'requests served meanwhile, p50 / max',
      `${fmtMs(summarize(r.sharedAlter.lat).p50)} / ${fmtMs(summarize(r.sharedAlter.lat).max)}`,
      `${fmtMs(summarize(r.schemasAlter.lat).p50)} / ${fmtMs(summarize(r.schemasAlter.lat).max)}`,
    ],
    [`small transaction, business at random of ${fmt(r.n, 0)}, p50 / p99`, p(r.sharedTx.random), p(r.schemasTx.random)],
    ['small transaction, 10 hot businesses, p50 / p99', p(r.sharedTx.hot), p(r.schemasTx.hot)],
    [
      `backend cache memory per business touched (${fmt(r.touch, 0)} in one connection)`,
      kb(memDelta(r.sharedMem, 'cache')),
      kb(memDelta(r.schemasMem, 'cache')),
    ],
    [
      `backend memory after ${fmt(r.touch, 0)} businesses (contexts / private RSS)`,
      `${fmtMb(r.sharedMem.after.total)} / ${fmtMb(r.sharedMem.after.rssAnon)}`,
      `${fmtMb(r.schemasMem.after.total)} / ${fmtMb(r.schemasMem.after.rssAnon)}`,
    ],
  ];
  return {
    caption: `PostgreSQL, ${fmt(r.n, 0)} businesses (load ${r.load})`,
    header: ['measure', 'shared tables, RLS forced', 'schema per business'],
    rows,
  };
}
