/**
 * The first phase of composition: the store opened, and the business it serves chosen (the file
 * imported into an empty store, or always in `import` mode; the stored one when it differs in
 * `stored_first` mode, said in a warning) and compiled into the one live business of the process.
 */
import { LiveBusiness, chooseDefinition, type Business, type Logger } from '../operations/index.js';
import { openStore, type Store } from '../store/index.js';
import type { ServerOptions } from './options.js';

export interface OpenedBusiness {
  store: Store;
  live: LiveBusiness;
  biz: Business;
  source: Awaited<ReturnType<typeof chooseDefinition>>['source'];
}

export async function openBusiness(opts: ServerOptions, log: Logger): Promise<OpenedBusiness> {
  // A connection that breaks (a database restart) is logged here and replaced; calls meanwhile answer 503.
  const store = await openStore(opts.db, opts.dbTimeouts, (err) => log.warn('database connection error', { error: err.message, code: (err as { code?: string }).code }));
  const live = new LiveBusiness(
    store,
    { sandbox: opts.sandbox, allowLoopbackUrls: opts.security?.allowLoopbackProfiles, payments: opts.payments?.provider, settings: opts.settingsOverride },
    (err) => log.warn('could not check the stored business definition', { error: String(err) }),
  );
  live.onAdopt = opts.onDefinitionChanged;
  let chosen: Awaited<ReturnType<typeof chooseDefinition>>;
  let biz: Business;
  try {
    chosen = await store.transaction((tx) => chooseDefinition(tx, opts.business, opts.definition ?? 'import'));
    biz = live.start(chosen.def, chosen.version);
  } catch (err) {
    await store.close();
    throw err;
  }
  if (chosen.source === 'stored_differs') {
    log.warn('the database holds a business definition that differs from the file given: the database wins (re-import the file with `usp-server import` or `serve --reimport`)', {
      version: chosen.version,
    });
  }
  return { store, live, biz, source: chosen.source };
}
