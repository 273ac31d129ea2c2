import type { KeyValueRepo } from '../port.js';
import type { Statements } from './statements.js';

export function sqliteKeyValue(s: Statements): KeyValueRepo {
  const get = s.prepare('SELECT value FROM kv WHERE key = ?');
  const set = s.prepare(
    'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  return {
    async get(key) {
      const r = get.get(key) as { value: string } | undefined;
      return r ? r.value : null;
    },
    async set(key, value) {
      set.run(key, value);
    },
  };
}
