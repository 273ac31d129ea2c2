/**
 * Many businesses in one PostgreSQL schema (docs/DECISIONS.md, "Many businesses: shared tables keyed
 * by business"): groundwork, not yet used by the store. Every business table carries `business_id`,
 * first in its primary key, in each unique and exclusion constraint, foreign key and index; row-level
 * security is enabled and FORCED, so the owner the application connects as is bound too, and the
 * policy reads the business from a setting made per transaction (`set_config(..., true)`), never per
 * session: a pooled connection keeps nothing of the business it served last.
 *
 * An empty or missing setting matches no row and lets no row be written (a connection once used for
 * a business reads the setting as '' after that transaction ends, not as missing): forgetting to set
 * the business reads nothing and writes nothing. Superusers and BYPASSRLS roles skip every policy,
 * forced or not; the application must connect as neither.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

/** The setting that names the business of the current transaction. */
export const BUSINESS_SETTING = 'usp.business';

const CURRENT = `NULLIF(current_setting('${BUSINESS_SETTING}', true), '')`;

/** Tables that are not one business's data: the migration record and the registry's own tables. */
export const NOT_KEYED = (table: string) => table === 'schema_migrations' || table.startsWith('registry_');

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** SQL that makes the current transaction act for `businessId`; run it first in every transaction. */
export function setBusiness(client: Pick<pg.ClientBase, 'query'>, businessId: string): Promise<unknown> {
  if (businessId === '') throw new Error('a business id is required');
  return client.query('SELECT set_config($1, $2, true)', [BUSINESS_SETTING, businessId]);
}

/**
 * The DDL that recreates every business table of schema `from` (migrated by the store's migrations)
 * in schema `to`, keyed by business and under forced row-level security. It reads the catalog of
 * `from`; run the result in one transaction as the role that is to own the tables. Triggers are
 * carried when their function has a business-aware version here (KEYED_FUNCTIONS), else this
 * throws. Generated keys keep drawing from `from`'s sequences, so `from` must stay.
 */
export async function keyedSchemaSql(
  client: Pick<pg.ClientBase, 'query'>,
  from: string,
  to: string,
  only?: ReadonlySet<string>,
): Promise<string> {
  if (!IDENT.test(from) || !IDENT.test(to)) throw new Error('schema names must be plain identifiers');
  const tables = (
    await client.query<{ oid: number; relname: string }>(
      `SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
      [from],
    )
  ).rows.filter((t) => !NOT_KEYED(t.relname) && (!only || only.has(t.relname)));
  const sql: string[] = [];
  for (const fn of new Set(await triggerFunctions(client, from))) sql.push(keyedFunction(fn, to));
  for (const { oid, relname } of tables) {
    const src = `${from}.${relname}`;
    const dst = `${to}.${relname}`;
    sql.push(`CREATE TABLE ${dst} (business_id TEXT NOT NULL DEFAULT ${CURRENT} CHECK (business_id <> ''),
      LIKE ${src} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING CONSTRAINTS);`);
    const constraints = await client.query<{ conname: string; contype: string; def: string }>(
      `SELECT conname, contype, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid = $1 AND contype IN ('p', 'u', 'x', 'f') ORDER BY contype, conname`,
      [oid],
    );
    for (const k of constraints.rows)
      sql.push(`ALTER TABLE ${dst} ADD CONSTRAINT ${k.conname} ${keyedConstraint(k.contype, k.def, from, to)};`);
    const indexes = await client.query<{ def: string }>(
      `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indrelid = $1
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
      [oid],
    );
    for (const { def } of indexes.rows) sql.push(`${keyedIndex(def, from, to, relname)};`);
    const triggers = await client.query<{ def: string }>(
      'SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname',
      [oid],
    );
    for (const { def } of triggers.rows) sql.push(`${keyedTrigger(def, from, to, relname)};`);
    sql.push(`ALTER TABLE ${dst} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${dst} FORCE ROW LEVEL SECURITY;
      CREATE POLICY business ON ${dst} USING (business_id = ${CURRENT}) WITH CHECK (business_id = ${CURRENT});`);
  }
  return sql.join('\n');
}

/** An index's definition on the keyed table, `business_id` first. */
export function keyedIndex(def: string, from: string, to: string, table: string): string {
  // pg_get_indexdef qualifies the table only when `from` is not on the search_path.
  const moved = def.replace(new RegExp(` ON (?:${from}\\.)?${table} `), ` ON ${to}.${table} `);
  // GIN over text cannot lead with a text column without btree_gin: the policy filters after it.
  return moved.replace(/ USING (btree|gist) \(/, ' USING $1 (business_id, ');
}

/** A constraint's definition with `business_id` put first (a foreign key on both sides). */
export function keyedConstraint(type: string, def: string, from: string, to: string): string {
  if (type === 'p') return def.replace('PRIMARY KEY (', 'PRIMARY KEY (business_id, ');
  if (type === 'u') return def.replace('UNIQUE (', 'UNIQUE (business_id, ');
  if (type === 'x') return def.replace(/EXCLUDE USING (\w+) \(/, 'EXCLUDE USING $1 (business_id WITH =, ');
  return def
    .replace('FOREIGN KEY (', 'FOREIGN KEY (business_id, ')
    .replace(new RegExp(`REFERENCES (?:${from}\\.)?(\\w+)\\(`), `REFERENCES ${to}.$1(business_id, `);
}

/** The functions the triggers of schema `from` execute. */
async function triggerFunctions(client: Pick<pg.ClientBase, 'query'>, from: string): Promise<string[]> {
  const r = await client.query<{ fn: string }>(
    `SELECT p.proname AS fn FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY p.proname`,
    [from],
  );
  return r.rows.map((x) => x.fn);
}

/**
 * Business-aware versions of the trigger functions of the migrations, by name. A migration that adds
 * a trigger function must add its keyed version here, or deriving a keyed schema refuses.
 */
const KEYED_FUNCTIONS: Record<string, (to: string) => string> = {
  // The migration's bump_resource_version, its counter row keyed by the changed row's business.
  bump_resource_version: (
    to,
  ) => `CREATE OR REPLACE FUNCTION ${to}.bump_resource_version() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO ${to}.resource_versions (business_id, resource_id, version) VALUES (NEW.business_id, NEW.resource_id, 1)
        ON CONFLICT (business_id, resource_id) DO UPDATE SET version = resource_versions.version + 1;
    END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (NEW.resource_id, NEW.business_id) IS DISTINCT FROM (OLD.resource_id, OLD.business_id)) THEN
      INSERT INTO ${to}.resource_versions (business_id, resource_id, version) VALUES (OLD.business_id, OLD.resource_id, 1)
        ON CONFLICT (business_id, resource_id) DO UPDATE SET version = resource_versions.version + 1;
    END IF;
    RETURN NULL;
  END $$;`,
  // calendars.ts's queue_calendar_push: the push targets and the job of the booking's own business.
  queue_calendar_push: (
    to,
  ) => `CREATE OR REPLACE FUNCTION ${to}.queue_calendar_push() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM ${to}.calendar_push_targets t WHERE t.business_id = NEW.business_id AND (
                  t.resource_id IN (SELECT jsonb_array_elements_text((NEW.data::jsonb)->'priv'->'resource_ids'))
                  OR (TG_OP = 'UPDATE' AND t.resource_id IN (SELECT jsonb_array_elements_text((OLD.data::jsonb)->'priv'->'resource_ids'))))) THEN
      INSERT INTO ${to}.calendar_push_jobs (business_id, booking_id, version, attempts, next_attempt_ms) VALUES (NEW.business_id, NEW.id, 1, 0, 0)
        ON CONFLICT (business_id, booking_id) DO UPDATE SET version = calendar_push_jobs.version + 1, attempts = 0, next_attempt_ms = 0, last_error = NULL;
    END IF;
    RETURN NULL;
  END $$;`,
};

export function keyedFunction(name: string, to: string): string {
  const make = KEYED_FUNCTIONS[name];
  if (!make)
    throw new Error(`trigger function ${name} has no business-aware version (business-keyed.ts, KEYED_FUNCTIONS)`);
  return make(to);
}

/** A trigger's definition on the keyed table, executing the keyed function. */
export function keyedTrigger(def: string, from: string, to: string, table: string): string {
  return def
    .replace(new RegExp(` ON (?:${from}\\.)?${table} `), ` ON ${to}.${table} `)
    .replace(new RegExp(`EXECUTE FUNCTION (?:${from}\\.)?(\\w+)\\(`), `EXECUTE FUNCTION ${to}.$1(`);
}

/** How one business's sessions differ in a keyed schema (session.ts). */
export interface SessionKeying {
  /** Sets the business for the transaction it runs in: right after BEGIN, in its round trip. */
  readonly begin: string;
  /** The statement as the keyed schema needs it: every ON CONFLICT target led by business_id. */
  statement(text: string): string;
  /** An advisory lock key of this business (two businesses' hot keys never collide). */
  lockKey(key: string): string;
  /** A result without the key column (a `SELECT *` reads it too). */
  result(r: pg.QueryResult): pg.QueryResult;
}

const CONFLICT_TARGET = /\bON\s+CONFLICT\s*\((?!\s*business_id\b)/gi;
const translated = new Map<string, string>();

/**
 * The keying of `businessId`'s sessions. The statements are the unkeyed store's: a conflict target
 * names a unique key, and each of the keyed schema's begins with business_id (keyedConstraint), so
 * the one rewrite a statement needs is business_id put first in its ON CONFLICT target (a target
 * left out, `ON CONFLICT DO NOTHING`, needs none). Rewrites are remembered per statement text.
 */
export function keying(businessId: string): SessionKeying {
  if (businessId === '') throw new Error('a business id is required');
  return {
    begin: `SELECT set_config('${BUSINESS_SETTING}', ${pg.escapeLiteral(businessId)}, true)`,
    statement(text) {
      let out = translated.get(text);
      if (out === undefined) {
        out = text.replace(CONFLICT_TARGET, 'ON CONFLICT (business_id, ');
        if (translated.size < 10_000) translated.set(text, out);
      }
      return out;
    },
    lockKey: (key) => `business:${businessId.length}:${businessId}:${key}`,
    result(r) {
      if (!r.fields?.some((f) => f.name === 'business_id')) return r;
      for (const row of r.rows) delete row.business_id;
      r.fields = r.fields.filter((f) => f.name !== 'business_id');
      return r;
    },
  };
}

/** The LISTEN/NOTIFY channel of one business in a keyed schema (a name within PostgreSQL's 63 bytes). */
export function keyedChannelName(schema: string, businessId: string): string {
  return `usp_events_${createHash('sha256').update(`${schema}\u0000${businessId}`).digest('hex').slice(0, 32)}`;
}

/** The migration record a keyed schema keeps: the template's version it was derived at. */
export class KeyedSchemaBehind extends Error {
  override readonly name = 'KeyedSchemaBehind';
  constructor(schema: string, at: number, wanted: number, why: string) {
    super(
      `the keyed schema ${schema} is at migration ${at}, and the store at ${wanted}: the migrations since ${why}, which is not applied to a keyed schema by itself (docs/DECISIONS.md, "PostgreSQL keyed by business, built")`,
    );
  }
}

/**
 * What one business needs in a keyed schema before its first transaction: the rows the migrations
 * seed (claim_span's bound on claim lengths, as its migration computes it). Idempotent.
 */
export const BUSINESS_SEED = `INSERT INTO claim_span (id, max_ms)
  SELECT 1, COALESCE(MAX(end_ms - start_ms), 0) FROM claims ON CONFLICT DO NOTHING`;

/**
 * Delete every row of `businessId` in keyed schema `schema`, in one transaction set for that business
 * (the policy confines each DELETE to it as well as its WHERE): a table before the tables it refers
 * to. What removing a business is in a keyed schema, where there is no schema of its own to drop.
 */
export async function deleteBusinessRows(c: pg.ClientBase, schema: string, businessId: string): Promise<number> {
  if (!IDENT.test(schema)) throw new Error('schema names must be plain identifiers');
  const tables = (
    await c.query<{ t: string }>(
      `SELECT c.relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'schema_migrations' ORDER BY c.relname`,
      [schema],
    )
  ).rows.map((r) => r.t);
  const refs = (
    await c.query<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE k.contype = 'f' AND n.nspname = $1 AND c.relname <> p.relname`,
      [schema],
    )
  ).rows;
  const order: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const next = [...left].filter((t) => !refs.some((r) => r.parent === t && left.has(r.child)));
    if (next.length === 0) throw new Error(`foreign keys of ${schema} form a cycle: ${[...left].join(', ')}`);
    for (const t of next) {
      order.push(t);
      left.delete(t);
    }
  }
  let deleted = 0;
  await c.query('BEGIN');
  try {
    await setBusiness(c, businessId);
    // Triggers fire at each DELETE, not at COMMIT, and a second pass takes the rows they wrote
    // (a claim deleted bumps its resource's version row).
    await c.query('SET CONSTRAINTS ALL IMMEDIATE');
    for (const pass of [1, 2])
      for (const t of order) {
        const n = (await c.query(`DELETE FROM ${schema}.${t} WHERE business_id = $1`, [businessId])).rowCount ?? 0;
        if (pass === 1) deleted += n;
      }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return deleted;
}
