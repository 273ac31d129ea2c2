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
  /**
   * The transaction runs on the definition of `version`: when the stored version differs, it fails
   * with DefinitionChanged, before anything it wrote is committed. A store may read the version with
   * the transaction's next statement (PostgreSQL: in that statement's round trip, with BEGIN), and
   * at the latest before COMMIT; the call may therefore resolve before the check is made.
   */
  verifyVersion(version: number): Promise<void>;
  /** Every row, by kind then position. Inside a write transaction the rows stay locked until commit. */
  entries(): Promise<DefinitionEntry[]>;
  /** Insert or replace one row (by kind and id). */
  put(e: DefinitionEntry): Promise<void>;
  /** Remove every row (a whole import replaces them). */
  clear(): Promise<void>;
  /** Bump the version in this transaction; returns the new one. */
  bump(): Promise<number>;
}

/**
 * The stored definition is not the one the transaction was told it runs on (`verifyVersion`): it
 * was rolled back. The caller takes up the stored definition and runs the call again.
 */
export class DefinitionChanged extends Error {
  override readonly name = 'DefinitionChanged';
  /** Brand: layers that import the store for types only recognise it by this. */
  readonly definitionChanged = true as const;
  constructor(
    readonly expected: number,
    readonly stored: number,
  ) {
    super(`the business definition changed (version ${expected} expected, ${stored} stored)`);
  }
}
