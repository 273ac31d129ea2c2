import type { KeyValueRepo } from '../port.js';
import type { Statements } from './statements.js';

const GET = 'SELECT value FROM kv WHERE key = ?';
const SET = 'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

export function sqliteKeyValue(s: Statements): KeyValueRepo {
  return new SqliteKeyValue(s);
}

/** A class over the connection's statement cache, each statement prepared on its first use (./outbox.ts). */
class SqliteKeyValue implements KeyValueRepo {
  constructor(private readonly s: Statements) {}
  async get(key: string) {
    const r = this.s.prepare(GET).get(key) as { value: string } | undefined;
    return r ? r.value : null;
  }
  async set(key: string, value: string) {
    this.s.prepare(SET).run(key, value);
  }
}
