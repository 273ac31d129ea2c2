export { openSqliteStore } from './sqlite/sqlite-store.js';
import { openSqliteStore as openSqlite } from './sqlite/sqlite-store.js';
/** Pick the engine from the location: a postgres:// URL selects PostgreSQL, anything else is a SQLite path. */
export async function openStore(location) {
    if (/^postgres(ql)?:\/\//.test(location)) {
        const { openPostgresStore } = await import('./postgres/postgres-store.js');
        return openPostgresStore({ url: location });
    }
    return openSqlite({ path: location });
}
//# sourceMappingURL=index.js.map