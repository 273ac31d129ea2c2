export async function openPostgresStore(_opts) {
    throw new Error('the PostgreSQL store is not available in this build');
}
//# sourceMappingURL=postgres-store.js.map