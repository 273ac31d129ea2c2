/**
 * Provisioning businesses on PostgreSQL keyed by business (issue 39, item 7: "10,000 businesses
 * provisioned on one PostgreSQL"), through what `host add` and `host serve --pg-keyed` do: the
 * business added to the deployment's directory (its library function, `directory.add`), then its
 * store opened for the first time (the keyed store of `storeOf`: the business's seed rows), one
 * transaction written, and closed. One process, so every business's store shares the process's pool
 * (a sentinel store keeps it open, as a serving process would). The first open of the process
 * (the template's migrations and the keyed schema derived) is timed apart.
 *
 * Runs in a database of its own, created for the run and dropped after, as a plain role (neither
 * superuser nor BYPASSRLS); the URL's user only creates the role, the database and the extensions.
 *
 *   npm run build && USP_TEST_PG_URL=postgres://... node bench/provision-keyed.mjs [N=10000]
 *
 * `npm run bench` runs it in its tenancy section when USP_BENCH_PG_URL is set (USP_BENCH_PROVISION
 * businesses, 10,000 by default; 10 when quick).
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openPgDeploymentDirectory } from '../dist/store/postgres/deployment-directory.js';
import { openPostgresStore } from '../dist/store/postgres/postgres-store.js';
import { storeOf } from '../dist/server/hosted-stores.js';
import { fmt, msSince, now, runDatabase, summarize } from './lib.mjs';

const ROLE = 'usp_provision_app';
const round = (v) => Number(v.toFixed(2));
const mb = (b) => Number((Number(b) / 1e6).toFixed(1));

/** Provision `n` businesses on the server `base` names (a database of the run's own); the figures. */
export async function runProvision({ n, base, log = (line) => console.error(line) }) {
  const N = n;
  const database = await runDatabase(base, ROLE, `usp_provision_${process.pid}`);
  const inDb = new pg.Client({ connectionString: database.ownerUrl });
  await inDb.connect();
  const appUrl = database.url;
  const hosted = { dataDir: '/nonexistent', db: appUrl, pgKeyed: 'usp_keyed' };
  const open = (id) => openPostgresStore({ url: storeOf(hosted, id), poolSize: 10 });
  const catalog = async () =>
    (
      await inDb.query(`SELECT (SELECT count(*) FROM pg_class)::int AS rels, pg_database_size(current_database())::bigint AS bytes,
        (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname IN ('pg_catalog'))::bigint AS catalog_bytes`)
    ).rows[0];

  try {
    const empty = await catalog();
    const directory = await openPgDeploymentDirectory({ url: appUrl });
    let t = now();
    const sentinel = await open('sentinel');
    const firstOpenMs = msSince(t);
    // The template, the keyed schema and the directory are made: from here on a business is rows.
    const made = await catalog();
    const per = [];
    const started = now();
    let last = started;
    for (let i = 0; i < N; i++) {
      const id = `biz_${String(i).padStart(5, '0')}`;
      t = now();
      await directory.add({ id, hosts: [`${id}.localhost`], origin: 'demo', addedAt: Date.now() });
      const store = await open(id);
      await store.transaction((tx) => tx.kv.set('provisioned', id));
      await store.close();
      per.push(msSince(t));
      if ((i + 1) % 1000 === 0) {
        log(`${i + 1} businesses: ${fmt(msSince(last) / 1000)} ms each over the last 1,000`);
        last = now();
      }
    }
    const totalMs = msSince(started);
    const full = await catalog();
    // A business provisioned reads back its own row only.
    const check = await open('biz_00042');
    const mine = await check.read((tx) => tx.kv.get('provisioned'));
    await check.close();
    await sentinel.close();
    await directory.close();
    const s = summarize(per);
    return {
      businesses: N,
      first_open_of_process_ms: Number(firstOpenMs.toFixed(1)),
      per_business_ms: { median: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) },
      total_s: Number((totalMs / 1000).toFixed(1)),
      pg_class_rows: { empty: empty.rels, schemas_made: made.rels, after: full.rels },
      database_mb: { empty: mb(empty.bytes), schemas_made: mb(made.bytes), after: mb(full.bytes) },
      read_back: mine,
      load: os.loadavg().map((l) => l.toFixed(2)),
    };
  } finally {
    await inDb.end();
    await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const base = process.env.USP_TEST_PG_URL;
  if (!base) {
    console.error('set USP_TEST_PG_URL=postgres://... (scripts/pg-test-server.sh start prints one)');
    process.exit(2);
  }
  console.log(JSON.stringify(await runProvision({ n: Number(process.argv[2] ?? 10_000), base }), null, 2));
}
