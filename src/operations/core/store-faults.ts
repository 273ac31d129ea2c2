/**
 * Recognising the store's typed fault ("the database is unavailable") from the operations layer,
 * which imports the store for types only: the class carries a brand, checked here.
 */
import type { DefinitionChanged, StoreUnavailable } from '../../store/index.js';

/** The transaction was told a definition version that is no longer the stored one (`verifyVersion`). */
export function isDefinitionChanged(err: unknown): err is DefinitionChanged {
  return err instanceof Error && (err as Partial<DefinitionChanged>).definitionChanged === true;
}

export function isStoreUnavailable(err: unknown): err is StoreUnavailable {
  return err instanceof Error && (err as Partial<StoreUnavailable>).storeUnavailable === true;
}
