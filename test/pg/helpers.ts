/**
 * PostgreSQL test support. The PostgreSQL suites run when `USP_TEST_PG_URL` names a postgres://
 * database (`scripts/pg-test-server.sh start` prints one); otherwise they are skipped and say why.
 * `DATABASE_URL` is deliberately not read: it may name a database that matters. Every suite works
 * in a schema of its own, created here and dropped after, so suites can run in parallel on one
 * database and leave nothing behind.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const raw = process.env.USP_TEST_PG_URL || '';

/** The test database URL, or undefined when none is configured. */
export const PG_URL: string | undefined = /^postgres(ql)?:\/\//.test(raw) ? raw : undefined;

export const PG_SKIP_REASON =
  'no PostgreSQL: set USP_TEST_PG_URL=postgres://... (scripts/pg-test-server.sh start prints one)';

let noted = false;
/** Say once per test file that the PostgreSQL suites are skipped, and why. */
export function noteSkipped(what: string): string {
  if (!noted) {
    noted = true;
    console.warn(`[pg tests] ${what} skipped: ${PG_SKIP_REASON}`);
  }
  return `${what} (skipped: ${PG_SKIP_REASON})`;
}

/** A fresh, unused schema name. */
export function schemaName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** The test URL pointing at `schema` (openPostgresStore and `--db` read the `schema` parameter). */
export function urlWithSchema(schema: string): string {
  const u = new URL(PG_URL!);
  u.searchParams.set('schema', schema);
  return u.toString();
}

/** A plain client on the test database (for setup, cleanup and looking at tables directly). */
export async function adminClient(schema?: string): Promise<pg.Client> {
  const c = new pg.Client({
    connectionString: PG_URL,
    ...(schema ? { options: `-c search_path=${schema},public` } : {}),
  });
  await c.connect();
  return c;
}

export async function dropSchema(schema: string): Promise<void> {
  const c = await adminClient();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

/**
 * A plain application role on the test database (LOGIN, neither superuser nor BYPASSRLS, allowed to
 * create schemas), so row-level security really applies to what it runs; the extensions the
 * migrations need are created as the administrator first (btree_gist is not a trusted extension).
 * The test URL as that role, with `params` (for example `schema` and `business`) added.
 */
export async function plainRoleUrl(role: string, params: Record<string, string> = {}): Promise<string> {
  const c = await adminClient();
  try {
    await c.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS; END IF;
    END $$`);
    await c.query(`GRANT CREATE ON DATABASE "${new URL(PG_URL!).pathname.slice(1)}" TO ${role}`);
    await c.query('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
  } finally {
    await c.end();
  }
  const u = new URL(PG_URL!);
  u.username = role;
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
