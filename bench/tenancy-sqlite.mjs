/**
 * Many businesses on the embedded engine (issue 39, item 2): one SQLite file per business behind a
 * bounded LRU of open handles, against one file whose tables are keyed by business.
 *
 * Both use the store's real migrations (dist/store/sqlite/migrations.js) and the store's pragmas. A
 * business "loaded" is what the store opens per file: a writer and a read-only reader connection
 * (src/store/sqlite/sqlite-store.ts), its schema version read, and the two statements of a request
 * prepared. Simplifications, said where they are made: a business file is provisioned by copying a
 * migrated template (the from-scratch migration of one file is timed apart); the checkpointer and
 * the group commit of the store are left out; the keyed file (keyedFile) puts `business_id` first in
 * every primary key and index but drops CHECK constraints, triggers and the registry's tables and
 * virtual tables, and its rowid keys become composite keys the writer fills.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from '../dist/store/sqlite/migrations.js';
import { fmt, fmtMb, fmtMs, msSince, now, summarize } from './lib.mjs';

const CACHE_KIB = -16384; // the store's cache_size (src/store/sqlite/sqlite-store.ts)
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

function pragmas(db) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  db.pragma(`cache_size = ${CACHE_KIB}`);
}

/** A fresh file migrated as the store does it (one transaction per migration, recorded). */
function migrateFile(path) {
  const db = new Database(path);
  pragmas(db);
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)');
  SQLITE_MIGRATIONS.forEach((m, i) => {
    db.transaction(() => {
      db.exec(m);
      db.prepare('INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)').run(i + 1, Date.now());
    })();
  });
  return db;
}

const SERVICES = [0, 1, 2, 3, 4].map((k) => [
  `svc-${k}`,
  `{"name":"Service ${k}","duration":"PT${30 + k * 15}M"}`,
  `fp${k}`,
]);
const READ = 'SELECT id, data FROM catalog WHERE deleted = 0 ORDER BY id LIMIT 20';
const HOLD = `INSERT INTO holds (id, service_id, status, principal, expires_at_ms, data) VALUES (?, 'svc-1', 'active', 'bench', ?, '{}')`;

/** What the store opens for one business file, with the statements of a request prepared. */
function openBusiness(path) {
  const writer = new Database(path, { fileMustExist: true });
  pragmas(writer);
  writer.prepare('SELECT MAX(version) AS v FROM schema_migrations').get();
  const reader = new Database(path, { fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  reader.pragma(`cache_size = ${CACHE_KIB}`);
  return {
    read: reader.prepare(READ),
    hold: writer.prepare(HOLD),
    close() {
      writer.close();
      reader.close();
    },
  };
}

/** A bounded LRU of loaded businesses (a Map keeps insertion order: the first key is the least recent). */
class Handles {
  constructor(capacity, pathOf) {
    this.capacity = capacity;
    this.pathOf = pathOf;
    this.map = new Map();
    this.misses = 0;
    this.hits = 0;
    /** Milliseconds spent closing the evicted (the last close of a WAL file checkpoints it). */
    this.evictions = [];
  }
  get(i) {
    let h = this.map.get(i);
    if (h) {
      this.hits++;
      this.map.delete(i);
    } else {
      this.misses++;
      if (this.map.size >= this.capacity) {
        const [oldest, old] = this.map.entries().next().value;
        this.map.delete(oldest);
        const t = now();
        old.close();
        this.evictions.push(msSince(t));
      }
      h = openBusiness(this.pathOf(i));
    }
    this.map.set(i, h);
    return h;
  }
  closeAll() {
    for (const h of this.map.values()) h.close();
    this.map.clear();
  }
}

/**
 * One file with every business table keyed by business, generated from a migrated file: each table
 * gets `business_id` first in its primary key (a rowid table's key becomes a composite key), every
 * index and unique constraint gets it in front.
 */
function keyedFile(template, path) {
  const tpl = new Database(template, { readonly: true });
  const db = new Database(path);
  pragmas(db);
  const sql = [];
  const tables = tpl
    .pragma('table_list')
    .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_'));
  for (const { name, wr } of tables) {
    if (name === 'schema_migrations' || name.startsWith('registry_')) continue;
    const cols = tpl.pragma(`table_info(${name})`);
    const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const defs = cols.map(
      (c) =>
        `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value !== null ? ` DEFAULT ${c.dflt_value}` : ''}`,
    );
    const key = pk.length > 0 ? `, PRIMARY KEY (business_id, ${pk.map((c) => c.name).join(', ')})` : '';
    sql.push(
      `CREATE TABLE ${name} (business_id TEXT NOT NULL, ${defs.join(', ')}${key})${wr && pk.length > 0 ? ' WITHOUT ROWID' : ''};`,
    );
    for (const ix of tpl.pragma(`index_list(${name})`)) {
      if (ix.origin === 'pk') continue;
      if (ix.origin === 'c') {
        const def = tpl.prepare('SELECT sql FROM sqlite_master WHERE type = ? AND name = ?').get('index', ix.name).sql;
        sql.push(`${def.replace(/ ON (\w+) ?\(/, ' ON $1 (business_id, ')};`);
      } else {
        const on = tpl.pragma(`index_info(${ix.name})`).map((c) => c.name);
        sql.push(`CREATE UNIQUE INDEX ${name}_u${ix.seq} ON ${name} (business_id, ${on.join(', ')});`);
      }
    }
  }
  db.exec(sql.join('\n'));
  tpl.close();
  return db;
}

/** Resident memory after a collection when the run has --expose-gc, else as it stands. */
function rss() {
  globalThis.gc?.();
  return process.memoryUsage().rss;
}

export function runSqlite({ quick }) {
  const n = Number(process.env.USP_BENCH_SQLITE_TENANTS ?? (quick ? 20 : 2000));
  const capacity = Math.min(n, quick ? 5 : 200);
  const requests = quick ? 30 : 2000;
  const loadAtStart = load();
  const dir = mkdtempSync(join(os.tmpdir(), 'usp-tenancy-'));
  const out = { n, capacity, requests };
  try {
    // ---- one file per business ------------------------------------------------------------------
    const scratch = [];
    for (let k = 0; k < (quick ? 1 : 10); k++) {
      const t = now();
      migrateFile(join(dir, `scratch-${k}.db`)).close();
      scratch.push(msSince(t));
    }
    out.migrateOne = summarize(scratch);
    const template = join(dir, 'template.db');
    migrateFile(template).close();
    out.fileBytes = statSync(template).size;
    const pathOf = (i) => join(dir, `b-${i}.db`);
    let t = now();
    for (let i = 0; i < n; i++) {
      copyFileSync(template, pathOf(i));
      const db = new Database(pathOf(i), { fileMustExist: true });
      pragmas(db);
      const ins = db.prepare(
        'INSERT INTO catalog (id, data, fingerprint, modified_ms, deleted) VALUES (?, ?, ?, 1, 0)',
      );
      db.transaction(() => {
        for (const s of SERVICES) ins.run(...s);
      })();
      db.close();
    }
    out.provisionMs = msSince(t);

    // First request of a business not loaded (open + schema version + prepare + read + write), then loaded.
    const cold = [];
    const warm = [];
    const lru = new Handles(capacity, pathOf);
    for (let r = 0; r < Math.min(requests, n); r++) {
      const i = (r * 7919) % n; // every business once per n requests, none repeated within capacity
      const evicted = lru.evictions.length;
      let ti = now();
      const h = lru.get(i);
      h.read.all();
      h.hold.run(`h-${r}`, 1e12 + r);
      // The eviction this miss caused is timed apart (below): what the caller waits for is the open.
      cold.push(msSince(ti) - (lru.evictions[evicted] ?? 0));
      ti = now();
      h.read.all();
      h.hold.run(`h-${r}-w`, 1e12 + r);
      warm.push(msSince(ti));
    }
    out.cold = summarize(cold);
    out.warm = summarize(warm);
    out.evict = summarize(lru.evictions.length > 0 ? lru.evictions : [0]);
    lru.closeAll();

    // A write per business at random over n through the LRU (hits and misses as they fall).
    const mixed = [];
    const lru2 = new Handles(capacity, pathOf);
    for (let r = 0; r < requests; r++) {
      const i = Math.floor(Math.random() * n);
      const ti = now();
      const h = lru2.get(i);
      h.read.all();
      h.hold.run(`m-${r}`, 1e12 + r);
      mixed.push(msSince(ti));
    }
    out.mixed = summarize(mixed);
    out.hitRate = lru2.hits / (lru2.hits + lru2.misses);
    lru2.closeAll();

    // Memory per loaded business: `capacity` loaded at once, each having served a request.
    const m0 = rss();
    const held = [];
    for (let i = 0; i < capacity; i++) {
      const h = openBusiness(pathOf(i));
      h.read.all();
      h.hold.run(`mem-${i}`, 1);
      held.push(h);
    }
    out.memPerHandle = (rss() - m0) / capacity;
    for (const h of held) h.close();

    // ---- one file keyed by business -------------------------------------------------------------
    const keyedPath = join(dir, 'keyed.db');
    t = now();
    const kdb = keyedFile(template, keyedPath);
    out.keyedMigrateMs = msSince(t);
    out.keyedTables = kdb.prepare(`SELECT count(*) AS c FROM sqlite_master WHERE type = 'table'`).get().c;
    const kins = kdb.prepare(
      'INSERT INTO catalog (business_id, id, data, fingerprint, modified_ms, deleted) VALUES (?, ?, ?, ?, 1, 0)',
    );
    const bizId = (i) => `biz-${String(i).padStart(6, '0')}`;
    t = now();
    for (let i = 0; i < n; i++) {
      kdb.transaction(() => {
        for (const s of SERVICES) kins.run(bizId(i), ...s);
      })();
    }
    out.keyedProvisionMs = msSince(t);
    const kread = kdb.prepare(
      'SELECT id, data FROM catalog WHERE business_id = ? AND deleted = 0 ORDER BY id LIMIT 20',
    );
    const khold = kdb.prepare(
      `INSERT INTO holds (business_id, id, service_id, status, principal, expires_at_ms, data) VALUES (?, ?, 'svc-1', 'active', 'bench', ?, '{}')`,
    );
    const keyed = [];
    for (let r = 0; r < requests; r++) {
      const i = Math.floor(Math.random() * n);
      const ti = now();
      if (kread.all(bizId(i)).length !== 5) throw new Error(`keyed file: business ${i} has not 5 services`);
      khold.run(bizId(i), `k-${r}`, 1e12 + r);
      keyed.push(msSince(ti));
    }
    out.keyed = summarize(keyed);
    kdb.pragma('wal_checkpoint(TRUNCATE)');
    kdb.close();
    out.keyedBytes = statSync(keyedPath).size;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  out.load = `${loadAtStart} at start, ${load()} at end`;
  return out;
}

/** The report's section for SQLite from runSqlite's figures. */
export function sqliteSection(r) {
  const p = (s) => `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`;
  const rows = [
    ['schema migration, once', `${fmtMs(r.migrateOne.p50)} per file (p50)`, fmtMs(r.keyedMigrateMs)],
    [
      `provision all ${fmt(r.n, 0)} businesses`,
      `${fmt(r.provisionMs / 1000, 1)} s (${fmtMs(r.provisionMs / r.n)} each: copy a migrated file, seed)`,
      `${fmt(r.keyedProvisionMs / 1000, 1)} s (${fmtMs(r.keyedProvisionMs / r.n)} each)`,
    ],
    ['disk', `${fmt(r.fileBytes / 1024, 0)} KB per business before data`, `${fmtMb(r.keyedBytes)} for all`],
    ['first request of a business not loaded (open, read, write), p50 / p99', p(r.cold), 'no open: one file'],
    ['closing an evicted business (checkpoints its WAL), p50 / p99', p(r.evict), '–'],
    ['request of a loaded business, p50 / p99', p(r.warm), p(r.keyed)],
    [
      `request at random of ${fmt(r.n, 0)}, LRU of ${fmt(r.capacity, 0)}, p50 / p99`,
      `${p(r.mixed)} (hit rate ${fmt(r.hitRate * 100, 0)}%)`,
      p(r.keyed),
    ],
    [
      'memory per loaded business (writer + reader handle)',
      `${fmt(r.memPerHandle / 1024, 0)} KB`,
      '0 (one pair for all)',
    ],
  ];
  return {
    caption: `SQLite, ${fmt(r.n, 0)} businesses (load ${r.load})`,
    header: ['measure', 'file per business, LRU of handles', 'one file keyed by business'],
    rows,
  };
}
