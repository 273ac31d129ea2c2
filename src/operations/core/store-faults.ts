/**
 * Recognising the store's typed fault ("the database is unavailable") from the operations layer,
 * which imports the store for types only: the class carries a brand, checked here.
 */
import type { StoreUnavailable } from '../../store/index.js';

export function isStoreUnavailable(err: unknown): err is StoreUnavailable {
  return err instanceof Error && (err as Partial<StoreUnavailable>).storeUnavailable === true;
}
