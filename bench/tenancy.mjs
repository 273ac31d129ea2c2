/**
 * Many businesses on one deployment, storage only (issue 39, item 2): which design each engine takes,
 * decided by these figures (docs/DECISIONS.md, docs/SCALING.md). PostgreSQL runs when
 * USP_BENCH_PG_URL names a server on which its user may create roles and databases (the test
 * cluster of scripts/pg-test-server.sh); without it that half is skipped with a note.
 *
 *   USP_BENCH_TENANTS=N          businesses on PostgreSQL (full 10,000; quick 10)
 *   USP_BENCH_SQLITE_TENANTS=N   businesses on SQLite (full 2,000; quick 20)
 *   USP_BENCH_PROVISION=N        businesses provisioned through the product, keyed (full 10,000; quick 10)
 */
import { postgresSection, runPostgres } from './tenancy-pg.mjs';
import { runSqlite, sqliteSection } from './tenancy-sqlite.mjs';
import { runProvision } from './provision-keyed.mjs';
import { fmt, fmtMs } from './lib.mjs';

export async function run({ quick }) {
  const sections = [];
  const notes = [];
  const targets = [];
  const url = process.env.USP_BENCH_PG_URL;
  if (url) {
    const r = await runPostgres({ quick, url });
    sections.push(postgresSection(r));
    targets.push({
      name: `${fmt(r.n, 0)} businesses provisioned on one PostgreSQL (shared tables, RLS forced)`,
      target: '10,000',
      value: `${fmt(r.sharedProvisionMs / 1000, 1)} s`,
      ok: r.n >= 10000 ? true : null,
    });
    // Through the product: the directory's add (what `host add` calls), then the business's keyed store opened.
    const n = quick ? 10 : Number(process.env.USP_BENCH_PROVISION ?? 10_000);
    const p = await runProvision({ n, base: url, log: () => {} });
    sections.push({
      caption: `Provisioned through the product (\`host add\`'s directory write, then \`host serve --pg-keyed\`'s store opened and one transaction written), ${fmt(n, 0)} businesses, one process`,
      header: ['measure', 'value'],
      rows: [
        ['total', `${fmt(p.total_s, 1)} s`],
        [
          'per business, median / p90 / p99',
          `${fmt(p.per_business_ms.median)} / ${fmt(p.per_business_ms.p90)} / ${fmt(p.per_business_ms.p99)} ms`,
        ],
        [
          "the process's first open (template migrated, keyed schema derived)",
          `${fmt(p.first_open_of_process_ms, 0)} ms`,
        ],
        ['pg_class rows: schemas made / after', `${p.pg_class_rows.schemas_made} / ${p.pg_class_rows.after}`],
        ['database size: schemas made / after', `${p.database_mb.schemas_made} / ${p.database_mb.after} MB`],
      ],
    });
    targets.push({
      name: `${fmt(n, 0)} businesses provisioned on one PostgreSQL through the product (keyed by business)`,
      target: '10,000',
      value: `${fmt(p.total_s, 1)} s (${fmt(p.per_business_ms.median)} ms each)`,
      ok: n >= 10000 ? p.pg_class_rows.after === p.pg_class_rows.schemas_made : null,
    });
    notes.push(
      "PostgreSQL: each design in a database of its own, created for the run and dropped after it, with the store's real migrations (the keyed tables generated from them: bench/tenancy-pg.mjs says where that simplifies). The application connects as a role that is neither superuser nor BYPASSRLS. A small transaction is BEGIN, set the business (set_config(..., true): per transaction), read the services, insert a hold, COMMIT, on a pool of 4 connections taken in turn, so each connection serves businesses last served by the others. Backend memory: one connection serving that many distinct businesses in turn, CacheMemoryContext and its children (relcache, catcache) from pg_backend_memory_contexts, and the backend's private RSS (RssAnon). The column is added in one statement (shared) or one transaction per schema (schemas) with lock_timeout 2 s, while another connection serves requests.",
    );
  } else {
    notes.push(
      'PostgreSQL skipped: set USP_BENCH_PG_URL (for example the URL printed by `bash scripts/pg-test-server.sh start`) to measure it.',
    );
  }
  const s = runSqlite({ quick });
  sections.push(sqliteSection(s));
  targets.push({
    name: 'First request of a business not yet loaded, storage share (SQLite file per business), median',
    target: '< 50 ms',
    value: fmtMs(s.cold.p50),
    ok: s.cold.p50 < 50,
  });
  notes.push(
    "SQLite: a loaded business is what the store opens per file (a writer and a read-only reader connection with the store's pragmas, the schema version read, the request's two statements prepared). Business files are provisioned by copying a migrated template; the OS page cache is warm (files just written), so a cold open here is a cold handle, not a cold disk. Memory per loaded business is the RSS growth with that many loaded at once.",
  );
  return { id: 'tenancy', title: '12. Many businesses on one deployment: storage designs', sections, notes, targets };
}
