/** The database as a message may name it: a postgres:// URL without its password. */
export function shownDb(db: string): string {
  if (!/^postgres(ql)?:\/\//.test(db)) return db;
  try {
    const u = new URL(db);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://...';
  }
}
