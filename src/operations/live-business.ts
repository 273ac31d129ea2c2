/**
 * A business kept equal to its stored definition, as a series of frozen snapshots: every call first
 * compares the store's definition version (one cheap statement) with the version compiled, and on a
 * difference reads the rows, checks and compiles them into a new snapshot, which `current()` answers
 * from then on. A snapshot is never changed: a call that took one finishes with it, and whoever reads
 * the business (doors, workers) asks `current()` each time rather than holding one. Settings given
 * on the command line stay over the stored ones.
 */
import {
  checkBusinessDocument,
  withoutUnsafeTemplates,
  type BusinessDef,
  type BusinessSettings,
  shareEqualHours,
} from '../domain/index.js';
import type { DefinitionEntry, Store, Tx } from '../store/index.js';
import { compileBusiness, type Business, type BusinessSuspension, type PaymentProviderKind } from './business.js';
import type { PublicOrigin } from './public-origin.js';
import type { BusinessSource } from './core/scope.js';
import { canonical, documentOf, entriesOf } from './catalog-admin/definition-document.js';

export interface CompileOptions {
  sandbox?: boolean;
  allowLoopbackUrls?: boolean;
  payments?: PaymentProviderKind;
  /** Settings that override the stored ones in this process (command-line flags). */
  settings?: Partial<BusinessSettings>;
  /** Where the business is reached (read by every snapshot, set once at listen). */
  origin?: PublicOrigin;
  /** Whether this deployment sends the business's buyer mail. */
  mailSent?: boolean;
  /** The operator suspended the business (nothing can be booked); `setSuspended` changes it later. */
  suspended?: BusinessSuspension;
}

/** The stored definition as a checked business, or undefined when the store holds none. */
export async function storedDefinition(
  tx: Tx,
): Promise<{ version: number; def: BusinessDef; entries: DefinitionEntry[] } | undefined> {
  const entries = await tx.definition.entries();
  const stored = documentOf(entries);
  if (!stored) return undefined;
  // A template path stored before the path rule is dropped (its built-in text is used), not a failed start.
  const safe = withoutUnsafeTemplates(stored.settings);
  const doc = safe.dropped.length > 0 ? { ...stored, settings: safe.settings } : stored;
  const checked = checkBusinessDocument(doc);
  if (!checked.ok)
    throw new Error(
      `the stored business definition is invalid: ${checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
  return { version: await tx.definition.version(), def: checked.def, entries };
}

/** What an import changed, by kind: ids added, changed and removed. */
export interface ImportSummary {
  changed: boolean;
  version: number;
  added: string[];
  updated: string[];
  removed: string[];
}

/**
 * Make the stored definition `def` in this transaction: the rows are replaced and the version bumped
 * when anything differs (nothing is written otherwise). `dryRun` only reports what would change. The
 * caller republishes the catalog (`publishCatalog`) with the events it raises.
 */
export async function importDefinition(tx: Tx, def: BusinessDef, dryRun = false): Promise<ImportSummary> {
  await tx.lock(['definition']);
  const before = await tx.definition.entries();
  const next = entriesOf(def);
  const key = (e: DefinitionEntry) => `${e.kind}:${e.id}`;
  const old = new Map(before.map((e) => [key(e), e] as const));
  const added: string[] = [];
  const updated: string[] = [];
  for (const e of next) {
    const prev = old.get(key(e));
    old.delete(key(e));
    if (!prev) added.push(key(e));
    else if (prev.position !== e.position || canonical(prev.data) !== canonical(e.data)) updated.push(key(e));
  }
  const removed = [...old.keys()];
  const changed = added.length + updated.length + removed.length > 0;
  let version = await tx.definition.version();
  if (changed && !dryRun) {
    await tx.definition.clear();
    for (const e of next) await tx.definition.put(e);
    version = await tx.definition.bump();
  }
  return { changed, version, added, updated, removed };
}

/** Where a server's definition came from at start. */
export type DefinitionSource = 'imported' | 'stored' | 'stored_differs';

/**
 * The definition a server starts with: the file's, imported, when the store holds none or `mode` is
 * `import`; else the stored one (`stored_differs` when the file given says otherwise).
 */
export async function chooseDefinition(
  tx: Tx,
  file: BusinessDef,
  mode: 'import' | 'stored_first',
): Promise<{ def: BusinessDef; version: number; source: DefinitionSource }> {
  await tx.lock(['definition']);
  const stored = mode === 'stored_first' ? await storedDefinition(tx) : undefined;
  if (stored) {
    const same = canonical(entriesOf(file)) === canonical(entriesOf(stored.def));
    return { def: stored.def, version: stored.version, source: same ? 'stored' : 'stored_differs' };
  }
  const summary = await importDefinition(tx, file);
  return { def: file, version: summary.version, source: 'imported' };
}

/** What `refresh` answers when the stored version is the one compiled. */
const UNCHANGED: Promise<void> = Promise.resolve();

export class LiveBusiness implements BusinessSource {
  private refreshing?: Promise<void>;
  private snapshot?: Business;
  private suspension?: BusinessSuspension;
  /** Told after the business took up a new stored definition. */
  onAdopt?: () => void;

  constructor(
    private readonly store: Store,
    private readonly opts: CompileOptions,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.suspension = opts.suspended;
  }

  /** The latest snapshot (frozen); throws before `start`. */
  current(): Business {
    if (!this.snapshot) throw new Error('the business has not started');
    return this.snapshot;
  }

  /** Compile `def` as this process runs it (its flags' settings over the stored ones), frozen. */
  compile(def: BusinessDef, version: number): Business {
    const settings = { ...def.settings, ...(this.opts.settings ?? {}) };
    // Equal weekly schedules held once (src/domain/shared-hours.ts).
    const b = compileBusiness(shareEqualHours({ ...def, settings }), { ...this.opts, suspended: this.suspension });
    b.definitionVersion = version;
    return Object.freeze(b);
  }

  /** The first snapshot, compiled from `def` (throws SlotTagClash like compileBusiness). */
  start(def: BusinessDef, version: number): Business {
    this.snapshot = this.compile(def, version);
    return this.snapshot;
  }

  /** Publish `def` compiled as the new snapshot; the one before stays as it was for the calls holding it. */
  adopt(def: BusinessDef, version: number): void {
    this.snapshot = this.compile(def, version);
    this.onAdopt?.();
  }

  /**
   * Suspend the business with the operator's reason, or open it again (undefined): a new snapshot of
   * the same definition is published at once, and the calls after it follow it. The stored catalog
   * is the caller's to republish (`syncCatalog`).
   */
  setSuspended(suspension: BusinessSuspension | undefined): Business {
    this.suspension = suspension ? Object.freeze({ reason: suspension.reason }) : undefined;
    const now = this.current();
    this.adopt(now.def, now.definitionVersion);
    return this.current();
  }

  /**
   * Make the business the stored one if the store's version moved. A database that cannot answer
   * leaves the business as it is (calls answered from memory go on working).
   */
  refresh(): Promise<void> {
    // A store that reads the version at once (SQLite): the same read on every call, and an unchanged
    // version is answered without the promises of `check` (a read call's commonest case).
    if (!this.refreshing && this.store.definitionVersionNow && this.snapshot) {
      let version: number | undefined;
      try {
        version = this.store.definitionVersionNow();
      } catch {
        // `check` reads it again and reports the fault.
      }
      if (version === this.snapshot.definitionVersion) return UNCHANGED;
    }
    return (this.refreshing ??= this.check().finally(() => (this.refreshing = undefined)));
  }

  private async check(): Promise<void> {
    try {
      const version = await this.store.definitionVersion();
      if (version === this.current().definitionVersion) return;
      const stored = await this.store.read((tx) => storedDefinition(tx));
      if (stored && stored.version !== this.current().definitionVersion) this.adopt(stored.def, stored.version);
    } catch (err) {
      this.onError(err);
    }
  }
}
