/**
 * The business's own definition as data: its details and settings, its locations, resources (with
 * their weekly hours) and services (every published field and policy), one row each, in the order
 * the business file lists them. The business file is an import and export format of these rows.
 * A version counter, bumped in the transaction of every change, lets each process see cheaply
 * whether the definition it compiled is still the stored one.
 */

/** What a row describes: `business` (one row: details, settings, keys), a location, a resource or a service. */
export type DefinitionKind = 'business' | 'location' | 'resource' | 'service';

export interface DefinitionEntry {
  kind: DefinitionKind;
  id: string;
  /** Order among the rows of its kind (the business file's order). */
  position: number;
  /** The object as the business file writes it. */
  data: Record<string, unknown>;
}

export interface DefinitionRepo {
  /** The definition's version: 0 before anything was stored, then bumped by every change. */
  version(): Promise<number>;
  /** Every row, by kind then position. Inside a write transaction the rows stay locked until commit. */
  entries(): Promise<DefinitionEntry[]>;
  /** Insert or replace one row (by kind and id). */
  put(e: DefinitionEntry): Promise<void>;
  /** Remove every row (a whole import replaces them). */
  clear(): Promise<void>;
  /** Bump the version in this transaction; returns the new one. */
  bump(): Promise<number>;
}
