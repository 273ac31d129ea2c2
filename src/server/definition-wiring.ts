/**
 * The first phase of composition: the store opened, and the business it serves chosen (the file
 * imported into an empty store, or always in `import` mode; the stored one when it differs in
 * `stored_first` mode, said in a warning) and compiled into the one live business of the process.
 */
import {
  LiveBusiness,
  PublicOrigin,
  chooseDefinition,
  storedDefinition,
  type Business,
  type Logger,
} from '../operations/index.js';
import { openStore, type Store } from '../store/index.js';
import { differsAdvice, provenanceClash, readProvenance, recordProvenance } from './definition-provenance.js';
import type { ServerOptions } from './options.js';
import { sendsMail } from './mail-wiring.js';
import { paymentChoice } from './payments-wiring.js';

export interface OpenedBusiness {
  store: Store;
  live: LiveBusiness;
  /** The first snapshot. */
  biz: Business;
  /** Where the business is reached: set once at listen unless configured. */
  origin: PublicOrigin;
  source: Awaited<ReturnType<typeof chooseDefinition>>['source'];
}

export async function openBusiness(opts: ServerOptions, log: Logger): Promise<OpenedBusiness> {
  // A connection that breaks (a database restart) is logged here and replaced; calls meanwhile answer 503.
  const store = await openStore(
    opts.db,
    opts.dbTimeouts,
    (err) => log.warn('database connection error', { error: err.message, code: (err as { code?: string }).code }),
    opts.onDbStatement,
  );
  const publicOrigin = new PublicOrigin(opts.settingsOverride?.public_url);
  const live = new LiveBusiness(
    store,
    {
      sandbox: opts.sandbox,
      allowLoopbackUrls: opts.security?.allowLoopbackProfiles,
      payments: paymentChoice(opts.payments),
      settings: opts.settingsOverride,
      origin: publicOrigin,
      mailSent: sendsMail(opts.mail),
      suspended: opts.suspended,
    },
    (err) => log.warn('could not check the stored business definition', { error: String(err) }),
  );
  live.onAdopt = opts.onDefinitionChanged;
  let chosen: Awaited<ReturnType<typeof chooseDefinition>>;
  let biz: Business;
  let advice: string | undefined;
  const origin = opts.definitionOrigin;
  try {
    chosen = await store.transaction(async (tx) => {
      if (!origin) return chooseDefinition(tx, opts.business, opts.definition ?? 'import');
      const recorded = await readProvenance(tx);
      // The database names the business it was made for: the demo's is never a file's, and the reverse
      // (--reimport included: it would replace the definition, not the other business's bookings).
      const storedId = recorded ? undefined : (await storedDefinition(tx))?.def.business.id;
      const clash = provenanceClash({
        recorded,
        storedId,
        givenId: opts.business.business.id,
        given: origin,
        db: opts.db ?? ':memory:',
      });
      if (clash) throw new DefinitionClash(clash);
      const c = await chooseDefinition(tx, opts.business, opts.definition ?? 'import');
      if (c.source === 'imported') await recordProvenance(tx, origin, c.version, opts.clock?.now() ?? Date.now());
      if (c.source === 'stored_differs')
        advice = differsAdvice({ recorded, storedVersion: c.version, given: origin, db: opts.db ?? ':memory:' });
      return c;
    });
    biz = live.start(chosen.def, chosen.version);
  } catch (err) {
    await store.close();
    throw err;
  }
  if (chosen.source === 'stored_differs') {
    log.warn(
      advice ??
        'the database holds a business definition that differs from the one given: the database wins (`usp-server export` writes it as a file)',
      {
        version: chosen.version,
      },
    );
  }
  return { store, live, biz, origin: publicOrigin, source: chosen.source };
}

/** The store of a role without a business (the registry): opened, no definition chosen. */
export async function openRoleStore(
  opts: Pick<ServerOptions, 'db' | 'dbTimeouts' | 'onDbStatement'>,
  log: Logger,
): Promise<Store> {
  return openStore(
    opts.db,
    opts.dbTimeouts,
    (err) => log.warn('database connection error', { error: err.message, code: (err as { code?: string }).code }),
    opts.onDbStatement,
  );
}

/** A database that belongs to another business than the one given (the demo's, or a file's): the start stops, saying why. */
export class DefinitionClash extends Error {}
