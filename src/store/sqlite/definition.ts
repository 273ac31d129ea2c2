import { DefinitionChanged, type DefinitionRepo } from '../definition-port.js';
import { DEFINITION_COLUMNS, DEFINITION_KIND_ORDER, toDefinitionEntry } from '../shared/definition-rows.js';
import type { Statements } from './statements.js';

const VERSION = 'SELECT version FROM definition_version WHERE one = 1';
const ENTRIES = `SELECT ${DEFINITION_COLUMNS} FROM definition_entries ORDER BY ${DEFINITION_KIND_ORDER}, position, id`;
const PUT = `INSERT INTO definition_entries (${DEFINITION_COLUMNS}) VALUES (?, ?, ?, ?)
     ON CONFLICT (kind, id) DO UPDATE SET position = excluded.position, data = excluded.data`;
const CLEAR = 'DELETE FROM definition_entries';
const BUMP = `INSERT INTO definition_version (one, version) VALUES (1, 1)
     ON CONFLICT (one) DO UPDATE SET version = version + 1 RETURNING version`;

export function sqliteDefinition(s: Statements): DefinitionRepo {
  return new SqliteDefinition(s);
}

/** A class over the connection's statement cache, each statement prepared on its first use (./outbox.ts). */
class SqliteDefinition implements DefinitionRepo {
  constructor(private readonly s: Statements) {}
  async version() {
    return (this.s.prepare(VERSION).get() as { version: number } | undefined)?.version ?? 0;
  }
  async verifyVersion(expected: number) {
    const stored = await this.version();
    if (stored !== expected) throw new DefinitionChanged(expected, stored);
  }
  async entries() {
    return (this.s.once(ENTRIES).all() as any[]).map(toDefinitionEntry);
  }
  async put(e: Parameters<DefinitionRepo['put']>[0]) {
    this.s.prepare(PUT).run(e.kind, e.id, e.position, JSON.stringify(e.data));
  }
  async clear() {
    this.s.once(CLEAR).run();
  }
  async bump() {
    return (this.s.once(BUMP).get() as { version: number }).version;
  }
}
