import type { KeyValueRepo } from '../port.js';
import type { PgSession } from './session.js';

export function pgKeyValue(s: PgSession): KeyValueRepo {
  return {
    async get(key) {
      // Get-or-create (a secret generated at first start) must not race when the row is absent.
      await s.lockKey(`kv:${key}`);
      const r = await s.rows<{ value: string }>('SELECT value FROM kv WHERE key = $1', [key]);
      return r.length > 0 ? r[0].value : null;
    },
    async set(key, value) {
      await s.query(
        'INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
        [key, value],
      );
    },
  };
}
