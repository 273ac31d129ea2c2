/**
 * What the operator of a hosting deployment may do with its businesses (behind the operator door,
 * src/bindings/operator): list them with their health, add one from a business file's JSON (checked
 * like `host add`, written to `<data>/files/<id>.json` so that it lives in the data folder), set its
 * host names, add a custom domain verified by DNS (./operator-domains.ts), invite its owner by mail (./operator-invite.ts), export then delete it (./operator-removal.ts), suspend it with a reason and resume it. A loaded business's health is read through its
 * own operations and store (today's figures, calendar sync, the mail outbox), never by HTTP to
 * itself; one not loaded is not opened to be measured, and measuring one does not keep it loaded.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorRefusal, type OperatorBusiness, type OperatorDesk } from '../bindings/operator/index.js';
import { calendarSecretPrefix } from '../domain/index.js';
import { businessHealth, mailableAddress, type Logger } from '../operations/index.js';
import { DirectoryClash, PAYMENT_ACCOUNT, type DeploymentDirectory, type HostedBusiness } from '../store/index.js';
import { BusinessFileError, parseBusinessFile } from './business-file.js';
import type { BusinessPool } from './hosted-pool.js';
import { inviteOwner } from './operator-invite.js';
import { exportBusiness, removeBusiness } from './operator-removal.js';
import { claimDomain, defaultTxtResolver, pendingDomain, verifyClaim, type TxtResolver } from './operator-domains.js';
import type { UspServer } from './options.js';

/** A host name: DNS labels, no port, no scheme. */
export const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const FILE_ID = /^[A-Za-z0-9_-]{1,100}$/;
export const DEFAULT_SUSPENSION = 'The business is not taking bookings at the moment.';

export interface OperatorDeskDeps {
  /** The operator's own host name: no business may have it. */
  operatorHost: string;
  directory: DeploymentDirectory;
  pool: BusinessPool<UspServer>;
  dataDir: string;
  log: Logger;
  /** A postgres:// URL when the businesses live on PostgreSQL (their export is a dump then). */
  db?: string;
  schemaPrefix?: string;
  pgKeyed?: string;
  /** Reads a custom domain's `_usp-verify` TXT record (default: node:dns). */
  resolveTxt?: TxtResolver;
}

export function operatorDesk(d: OperatorDeskDeps): OperatorDesk {
  const { known, status, recompose, invite } = deskSteps(d);
  return {
    list: () => Promise.all(d.directory.list().map((b) => health(d, b))),
    get: async (id) => {
      const b = d.directory.get(id);
      return b && health(d, b);
    },
    create: (business, hosts, extra = {}) => createWithExtras(d, { business, hosts, ...extra }, invite),
    setPaymentAccount: (id, account) =>
      recompose(
        id,
        () => d.directory.setPaymentAccount(id, accountOf(account, false)),
        'operator set the payment account of a business',
        () => ({}),
      ),
    invite: async (id, email) => {
      await invite(id, email);
      return health(d, known(id));
    },
    setHosts: (id, hosts) => {
      known(id);
      const names = hostNames(d, hosts, id);
      return recompose(
        id,
        () => d.directory.setHosts(id, names),
        'operator set the host names of a business',
        () => ({ hosts: names }),
      );
    },
    addDomain: async (id, domain) => {
      known(id);
      if (typeof domain !== 'string')
        throw new OperatorRefusal('invalid', 'domain is a host name, e.g. "book.rosa.example".');
      const [name] = hostNames(d, [domain], id);
      await clash(() => claimDomain(d.directory, id, name!, Date.now()));
      d.log.info('operator added a custom domain, pending its DNS record', { business: id, domain: name });
      return health(d, known(id));
    },
    verifyDomain: (id, domain) =>
      recompose(
        id,
        () => verifyClaim(d.directory, d.resolveTxt ?? defaultTxtResolver, id, domain),
        'operator verified a custom domain',
        (name) => ({ domain: name }),
      ),
    exportBusiness: async (id) => {
      known(id);
      return exportBusiness(d, id);
    },
    remove: (id, confirm) => removeBusiness(d, id, confirm),
    suspend: (id, reason) => {
      known(id);
      return status(id, true, reasonOf(reason));
    },
    resume: (id) => {
      known(id);
      return status(id, false);
    },
  };
}

/** A refusal as facts beside a result (anything else still fails the call). */
function refusedBeside(err: unknown): { invited: false; invite_refused: string } {
  if (!(err instanceof OperatorRefusal)) throw err;
  return { invited: false, invite_refused: err.message };
}

async function clash<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DirectoryClash) throw new OperatorRefusal('conflict', err.message);
    throw err;
  }
}

/** A Stripe connected account as given: `acct_` then letters and digits; null (or, when optional, absent) is none. */
function accountOf(v: unknown, optional: boolean): string | undefined {
  if (v === null || (optional && v === undefined)) return undefined;
  if (typeof v !== 'string' || !PAYMENT_ACCOUNT.test(v))
    throw new OperatorRefusal(
      'invalid',
      'payment_account is a connected payment account id (acct_ then letters and digits), or null for none.',
    );
  return v;
}

function reasonOf(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.trim().length > 300 || /[\u0000-\u001f\u007f]/.test(v))
    throw new OperatorRefusal('invalid', 'reason is one line of at most 300 characters.');
  return v.trim();
}

function hostNames(d: OperatorDeskDeps, v: unknown, id: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 20 || v.some((n) => typeof n !== 'string'))
    throw new OperatorRefusal('invalid', 'hosts is a list of 1 to 20 host names, e.g. ["rosa.localhost"].');
  const names = [...new Set((v as string[]).map((n) => n.trim().toLowerCase().replace(/\.$/, '')))];
  const bad = names.find((n) => !HOST_NAME.test(n));
  if (bad)
    throw new OperatorRefusal(
      'invalid',
      `${JSON.stringify(bad)} is not a host name (letters, digits, hyphens and dots; no port, no scheme).`,
    );
  if (names.includes(d.operatorHost))
    throw new OperatorRefusal('conflict', `${d.operatorHost} is the operator's host name; no business can have it.`);
  const holder = names.map((n) => d.directory.byHost(n)).find((h) => h && h.id !== id);
  if (holder) throw new OperatorRefusal('conflict', `a host name given already reaches ${holder.id}.`);
  return names;
}

/** A business from a business file's JSON: checked like `host add`, its file written under `<data>/files/`. */
async function create(
  d: OperatorDeskDeps,
  business: unknown,
  hosts: unknown,
  paymentAccount: string | undefined,
): Promise<HostedBusiness> {
  let id: string;
  try {
    id = parseBusinessFile(business, 'business').business.id;
  } catch (err) {
    if (err instanceof BusinessFileError)
      throw new OperatorRefusal('invalid_file', err.message, { issues: err.issues });
    throw err;
  }
  if (!FILE_ID.test(id))
    throw new OperatorRefusal(
      'invalid_file',
      `the business id ${JSON.stringify(id)} cannot name a file (letters, digits, _ and -).`,
    );
  const names = hostNames(d, hosts, id);
  if (d.directory.get(id)) throw new OperatorRefusal('conflict', `the deployment already hosts ${id}.`);
  // Two ids that read alike as a calendar secret's name would share each other's secrets.
  const alike = d.directory.list().find((b) => calendarSecretPrefix(b.id) === calendarSecretPrefix(id));
  if (alike)
    throw new OperatorRefusal(
      'conflict',
      `the id ${id} reads as ${alike.id} in calendar secret names; give the business another id.`,
    );
  const dir = join(d.dataDir, 'files');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${id}.json`);
  writeFileSync(file, `${JSON.stringify(business, null, 2)}\n`, { mode: 0o600 });
  await clash(() =>
    d.directory.add({
      id,
      hosts: names,
      origin: file,
      addedAt: Date.now(),
      definition: JSON.stringify(business),
      ...(paymentAccount ? { paymentAccount } : {}),
    }),
  );
  d.log.info('operator added a business', { business: id, hosts: names });
  return d.directory.get(id)!;
}

/** The steps the desk's answers share: a known business, a status set now, a recomposing change, an invitation. */
function deskSteps(d: OperatorDeskDeps) {
  const known = (id: string): HostedBusiness => {
    const b = d.directory.get(id);
    if (!b) throw new OperatorRefusal('not_found', `No hosted business has the id ${JSON.stringify(id)}.`);
    return b;
  };
  const status = async (id: string, suspended: boolean, reason?: string) => {
    await d.directory.setStatus(id, suspended ? 'suspended' : 'active', reason);
    // A loaded business would take the new status up on its next request (hosting.ts); this makes it now.
    await d.pool.peek(id, (s) => s.setSuspended(suspended ? (reason ?? DEFAULT_SUSPENSION) : undefined));
    return health(d, known(id));
  };
  // A change the business was composed with (its names, its account): written, then the loaded business is
  // closed so that its next request composes it afresh.
  const recompose = async <T>(
    id: string,
    write: () => T | Promise<T>,
    line: string,
    fields: (r: T) => Record<string, unknown>,
  ) => {
    known(id);
    const r = await clash(write);
    await d.pool.close(id);
    d.log.info(line, { business: id, ...fields(r) });
    return health(d, known(id));
  };
  const invite = async (id: string, email: unknown) => {
    known(id);
    await d.pool.use(id, (s) => inviteOwner(s, email));
    d.log.info('operator invited the owner of a business', { business: id });
  };
  return { known, status, recompose, invite };
}

/** A new business from the operator's form, with its connected account; with an owner's email, its owner invited. */
async function createWithExtras(
  d: OperatorDeskDeps,
  input: { business: unknown; hosts: unknown; paymentAccount?: unknown; ownerEmail?: unknown },
  invite: (id: string, email: unknown) => Promise<void>,
): Promise<OperatorBusiness> {
  const { ownerEmail } = input;
  if (ownerEmail !== undefined && !mailableAddress(ownerEmail))
    throw new OperatorRefusal('invalid', 'owner_email is the owner’s email address, e.g. "owner@example.com".');
  const b = await create(d, input.business, input.hosts, accountOf(input.paymentAccount, true));
  if (ownerEmail === undefined) return health(d, b);
  // The business exists either way: an invitation that could not go says why beside it.
  const sent = await invite(b.id, ownerEmail).then(() => ({ invited: true }), refusedBeside);
  const now = d.directory.get(b.id) ?? b;
  return { ...(await health(d, now)), ...sent };
}

/** A business as the operator sees it: directory facts, and for a loaded one what needs attention. */
async function health(d: OperatorDeskDeps, b: HostedBusiness): Promise<OperatorBusiness> {
  const pending = (await d.directory.domainClaimsOf(b.id)).map(pendingDomain);
  const base = {
    id: b.id,
    status: b.status,
    ...(b.reason ? { reason: b.reason } : {}),
    hosts: b.hosts,
    ...(b.paymentAccount ? { payment_account: b.paymentAccount } : {}),
    ...(pending.length ? { pending_domains: pending } : {}),
  };
  try {
    const measured = await d.pool.peek(b.id, measure);
    return measured ? { ...base, loaded: true, health: measured } : { ...base, loaded: false };
  } catch (err) {
    d.log.warn('could not read the health of a business', { business: b.id, error: String(err) });
    return { ...base, loaded: true, health: null };
  }
}

const AS_OPERATOR = {
  principal: 'business',
  profile: null,
  business: true,
  authenticated: true,
  actor: 'operator',
} as const;

/** What the business's own admin API computes (its figures, its calendar sync), and its mail outbox. */
async function measure(s: UspServer): Promise<Record<string, number>> {
  return { ...(await businessHealth(s.pipeline, s.scope, { ...AS_OPERATOR })) };
}
