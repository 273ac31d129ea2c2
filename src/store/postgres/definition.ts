import { DefinitionChanged, type DefinitionRepo } from '../definition-port.js';
import { DEFINITION_COLUMNS, DEFINITION_KIND_ORDER, toDefinitionEntry } from '../shared/definition-rows.js';
import type { PgSession } from './session.js';

const VERSION = 'SELECT version FROM definition_version WHERE one = 1';

export function pgDefinition(s: PgSession): DefinitionRepo {
  return {
    async version() {
      const r = await s.rows<{ version: string }>(VERSION);
      return r.length > 0 ? Number(r[0].version) : 0;
    },
    async verifyVersion(expected) {
      // Sent ahead of the transaction's next statement, in its round trip.
      s.verify(VERSION, (r) => {
        const stored = r.rows.length > 0 ? Number(r.rows[0].version) : 0;
        return stored === expected ? undefined : new DefinitionChanged(expected, stored);
      });
    },
    async entries() {
      // Read-modify-write of the definition (an admin edit, an import) from several processes: one at a time.
      await s.lockKey('definition');
      return (
        await s.rows(
          `SELECT ${DEFINITION_COLUMNS} FROM definition_entries ORDER BY ${DEFINITION_KIND_ORDER}, position, id`,
        )
      ).map(toDefinitionEntry);
    },
    async put(e) {
      await s.query(
        `INSERT INTO definition_entries (${DEFINITION_COLUMNS}) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET position = EXCLUDED.position, data = EXCLUDED.data`,
        [e.kind, e.id, e.position, JSON.stringify(e.data)],
      );
    },
    async clear() {
      await s.query('DELETE FROM definition_entries');
    },
    async bump() {
      const r = await s.rows<{ version: string }>(
        `INSERT INTO definition_version (one, version) VALUES (1, 1)
         ON CONFLICT (one) DO UPDATE SET version = definition_version.version + 1 RETURNING version`,
      );
      return Number(r[0].version);
    },
  };
}
