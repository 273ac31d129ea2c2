import { DefinitionChanged, type DefinitionRepo } from '../definition-port.js';
import { DEFINITION_COLUMNS, DEFINITION_KIND_ORDER, toDefinitionEntry } from '../shared/definition-rows.js';
import type { Statements } from './statements.js';

export function sqliteDefinition(s: Statements): DefinitionRepo {
  const version = s.prepare('SELECT version FROM definition_version WHERE one = 1');
  const entries = s.prepare(
    `SELECT ${DEFINITION_COLUMNS} FROM definition_entries ORDER BY ${DEFINITION_KIND_ORDER}, position, id`,
  );
  const put = s.prepare(
    `INSERT INTO definition_entries (${DEFINITION_COLUMNS}) VALUES (?, ?, ?, ?)
     ON CONFLICT (kind, id) DO UPDATE SET position = excluded.position, data = excluded.data`,
  );
  const clear = s.prepare('DELETE FROM definition_entries');
  const bump = s.prepare(
    `INSERT INTO definition_version (one, version) VALUES (1, 1)
     ON CONFLICT (one) DO UPDATE SET version = version + 1 RETURNING version`,
  );
  return {
    async version() {
      return (version.get() as { version: number } | undefined)?.version ?? 0;
    },
    async verifyVersion(expected) {
      const stored = (version.get() as { version: number } | undefined)?.version ?? 0;
      if (stored !== expected) throw new DefinitionChanged(expected, stored);
    },
    async entries() {
      return (entries.all() as any[]).map(toDefinitionEntry);
    },
    async put(e) {
      put.run(e.kind, e.id, e.position, JSON.stringify(e.data));
    },
    async clear() {
      clear.run();
    },
    async bump() {
      return (bump.get() as { version: number }).version;
    },
  };
}
