/** Placeholder until the PostgreSQL adapter lands: selecting it says so instead of failing obscurely. */
import type { Store } from '../port.js';

export async function openPostgresStore(_opts: { url: string }): Promise<Store> {
  throw new Error('the PostgreSQL store is not available in this build');
}
