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
import type pg from 'pg';

/** The setting that names the business of the current transaction. */
export const BUSINESS_SETTING = 'usp.business';

const CURRENT = `NULLIF(current_setting('${BUSINESS_SETTING}', true), '')`;

/** Tables that are not one business's data: the migration record and the registry's own tables. */
const NOT_KEYED = (table: string) => table === 'schema_migrations' || table.startsWith('registry_');

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** SQL that makes the current transaction act for `businessId`; run it first in every transaction. */
export function setBusiness(client: Pick<pg.ClientBase, 'query'>, businessId: string): Promise<unknown> {
  if (businessId === '') throw new Error('a business id is required');
  return client.query('SELECT set_config($1, $2, true)', [BUSINESS_SETTING, businessId]);
}

/**
 * The DDL that recreates every business table of schema `from` (migrated by the store's migrations)
 * in schema `to`, keyed by business and under forced row-level security. It reads the catalog of
 * `from`; run the result in one transaction as the role that is to own the tables. Not carried
 * over: triggers (the resource-version triggers need a business-aware function first). Generated
 * keys keep drawing from `from`'s sequences, so `from` must stay.
 */
export async function keyedSchemaSql(client: Pick<pg.ClientBase, 'query'>, from: string, to: string): Promise<string> {
  if (!IDENT.test(from) || !IDENT.test(to)) throw new Error('schema names must be plain identifiers');
  const tables = (
    await client.query<{ oid: number; relname: string }>(
      `SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
      [from],
    )
  ).rows.filter((t) => !NOT_KEYED(t.relname));
  const sql: string[] = [];
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
    for (const { def } of indexes.rows) {
      // pg_get_indexdef qualifies the table only when `from` is not on the search_path.
      const moved = def.replace(new RegExp(` ON (?:${from}\\.)?${relname} `), ` ON ${dst} `);
      // GIN over text cannot lead with a text column without btree_gin: the policy filters after it.
      sql.push(`${moved.replace(/ USING (btree|gist) \(/, ' USING $1 (business_id, ')};`);
    }
    sql.push(`ALTER TABLE ${dst} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${dst} FORCE ROW LEVEL SECURITY;
      CREATE POLICY business ON ${dst} USING (business_id = ${CURRENT}) WITH CHECK (business_id = ${CURRENT});`);
  }
  return sql.join('\n');
}

/** A constraint's definition with `business_id` put first (a foreign key on both sides). */
function keyedConstraint(type: string, def: string, from: string, to: string): string {
  if (type === 'p') return def.replace('PRIMARY KEY (', 'PRIMARY KEY (business_id, ');
  if (type === 'u') return def.replace('UNIQUE (', 'UNIQUE (business_id, ');
  if (type === 'x') return def.replace(/EXCLUDE USING (\w+) \(/, 'EXCLUDE USING $1 (business_id WITH =, ');
  return def
    .replace('FOREIGN KEY (', 'FOREIGN KEY (business_id, ')
    .replace(new RegExp(`REFERENCES (?:${from}\\.)?(\\w+)\\(`), `REFERENCES ${to}.$1(business_id, `);
}
