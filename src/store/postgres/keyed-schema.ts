/**
 * The keyed schema of a deployment (business-keyed.ts) made once from its migrated template, and
 * brought up to the template's later migrations where they only add: a table, a column, a key, an
 * index, a trigger (each keyed as at creation), or drop a key, an index or a trigger. A migration that
 * drops or retypes a column, or drops a table, is refused: the keyed schema stays as it was and the
 * store does not open on it (KeyedSchemaBehind), until that migration is translated by hand.
 */
import type pg from 'pg';
import {
  KeyedSchemaBehind,
  NOT_KEYED,
  keyedConstraint,
  keyedFunction,
  keyedIndex,
  keyedSchemaSql,
  keyedTrigger,
} from './business-keyed.js';

type Client = Pick<pg.ClientBase, 'query'>;

/**
 * Create keyed schema `to` from migrated template `from` once, or bring it up to `version`: under a
 * session advisory lock (openers at once wait, and find it made), in one transaction with its
 * migration record. `c` is a connection of its own, not given back to a pool in use.
 */
export async function ensureKeyedSchema(c: pg.ClientBase, from: string, to: string, version: number): Promise<void> {
  const lock = `usp-server:keyed:${to}`;
  await c.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lock]);
  try {
    const made = (await c.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`${to}.schema_migrations`]))
      .rows[0]?.t;
    let at = 0;
    if (made) {
      at =
        (await c.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${to}.schema_migrations`)).rows[0]?.v ?? 0;
      if (at >= version) return;
    }
    const sql = made ? await catchUpSql(c, from, to) : await keyedSchemaSql(c, from, to);
    if (typeof sql !== 'string') throw new KeyedSchemaBehind(to, at, version, sql.refused);
    await c.query('BEGIN');
    try {
      if (!made) {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${to}`);
        await c.query(`CREATE TABLE ${to}.schema_migrations (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL)`);
      }
      if (sql !== '') await c.query(sql);
      await c.query(`INSERT INTO ${to}.schema_migrations SELECT * FROM ${from}.schema_migrations WHERE version > $1`, [
        at,
      ]);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await c.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lock]).catch(() => undefined);
  }
}

interface Column {
  name: string;
  type: string;
  notnull: boolean;
  def: string | null;
  generated: string;
}

const tablesOf = async (c: Client, schema: string) =>
  new Map(
    (
      await c.query<{ oid: number; relname: string }>(
        `SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      )
    ).rows
      .filter((t) => !NOT_KEYED(t.relname))
      .map((t) => [t.relname, t.oid]),
  );

const byName = async <R extends { name: string }>(c: Client, text: string, oid: number) =>
  new Map((await c.query<R>(text, [oid])).rows.map((r) => [r.name, r]));

const COLUMNS = `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
  pg_get_expr(d.adbin, d.adrelid) AS def, a.attgenerated AS generated
  FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`;
const CONSTRAINTS = `SELECT conname AS name, contype AS type, pg_get_constraintdef(oid) AS def FROM pg_constraint
  WHERE conrelid = $1 AND contype IN ('p', 'u', 'x', 'f', 'c')`;
const INDEXES = `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`;
const TRIGGERS = `SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS def, p.proname AS fn FROM pg_trigger t
  JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgrelid = $1 AND NOT t.tgisinternal`;

/** The DDL that brings keyed `to` up to template `from`, or why it cannot be done by itself. */
async function catchUpSql(c: Client, from: string, to: string): Promise<string | { refused: string }> {
  const [src, dst] = [await tablesOf(c, from), await tablesOf(c, to)];
  const gone = [...dst.keys()].filter((t) => !src.has(t));
  if (gone.length > 0) return { refused: `drop the table ${gone.join(', ')}` };
  const added = new Set([...src.keys()].filter((t) => !dst.has(t)));
  const sql: string[] = added.size > 0 ? [await keyedSchemaSql(c, from, to, added)] : [];
  for (const [table, oid] of src) {
    if (added.has(table)) continue;
    const other = dst.get(table)!;
    const t = `${to}.${table}`;
    const [a, b] = [await byName<Column>(c, COLUMNS, oid), await byName<Column>(c, COLUMNS, other)];
    for (const [name, col] of a) {
      const was = b.get(name);
      if (col.generated !== '') return { refused: `add or keep the generated column ${table}.${name}` };
      if (!was) {
        sql.push(
          `ALTER TABLE ${t} ADD COLUMN ${name} ${col.type}${col.def ? ` DEFAULT ${col.def}` : ''}${col.notnull ? ' NOT NULL' : ''};`,
        );
        continue;
      }
      if (was.type !== col.type) return { refused: `change the type of ${table}.${name}` };
      if (was.def !== col.def)
        sql.push(`ALTER TABLE ${t} ALTER COLUMN ${name} ${col.def ? `SET DEFAULT ${col.def}` : 'DROP DEFAULT'};`);
      if (was.notnull !== col.notnull)
        sql.push(`ALTER TABLE ${t} ALTER COLUMN ${name} ${col.notnull ? 'SET' : 'DROP'} NOT NULL;`);
    }
    const dropped = [...b.keys()].filter((n) => n !== 'business_id' && !a.has(n));
    if (dropped.length > 0) return { refused: `drop the column ${table}.${dropped.join(', ')}` };
    type Named = { name: string; type: string; def: string };
    const [ka, kb] = [await byName<Named>(c, CONSTRAINTS, oid), await byName<Named>(c, CONSTRAINTS, other)];
    for (const name of kb.keys())
      if (!ka.has(name) && name !== `${table}_business_id_check`) sql.push(`ALTER TABLE ${t} DROP CONSTRAINT ${name};`);
    for (const [name, k] of ka)
      if (!kb.has(name))
        sql.push(
          `ALTER TABLE ${t} ADD CONSTRAINT ${name} ${k.type === 'c' ? k.def : keyedConstraint(k.type, k.def, from, to)};`,
        );
    const [ia, ib] = [await byName<Named>(c, INDEXES, oid), await byName<Named>(c, INDEXES, other)];
    for (const name of ib.keys()) if (!ia.has(name)) sql.push(`DROP INDEX ${to}.${name};`);
    for (const [name, i] of ia) if (!ib.has(name)) sql.push(`${keyedIndex(i.def, from, to, table)};`);
    type Trigger = { name: string; def: string; fn: string };
    const [ta, tb] = [await byName<Trigger>(c, TRIGGERS, oid), await byName<Trigger>(c, TRIGGERS, other)];
    for (const name of tb.keys()) if (!ta.has(name)) sql.push(`DROP TRIGGER ${name} ON ${t};`);
    for (const [name, tr] of ta)
      if (!tb.has(name)) sql.push(keyedFunction(tr.fn, to), `${keyedTrigger(tr.def, from, to, table)};`);
  }
  return sql.join('\n');
}
