/**
 * Hosting deployments for the tests (issue 39): one listener serving the demo salon and Nord Studio
 * (test/fixtures/hosting) on their `*.localhost` names, on the fixed clock, in a temp folder of the
 * test's own; on PostgreSQL (`db`) the directory and each business in schemas of the test's own, dropped
 * by `undeploy`. `deployHosting` is the set-up every hosting test shares; `deployTwo` adds an admin key
 * each, mail in a folder of each one's own and OAuth sign-up codes kept for the test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ManualClock } from '../../src/operations/index.js';
import {
  openDeploymentDirectoryAt,
  type DeploymentDirectory,
  type HostedBusiness,
  type NewHostedBusiness,
} from '../../src/store/index.js';
import {
  createHosting,
  type Hosting,
  type HostedServerOptions,
  type HostingOptions,
} from '../../src/server/hosting.js';
import type { TxtResolver } from '../../src/server/operator-domains.js';
import { hostedMail } from '../../src/server/cli/host.js';
import type { Flags } from '../../src/server/cli/flags.js';
import { hashApiKey } from '../../src/security/index.js';
import { dropSchema, schemaName } from '../pg/helpers.js';
import { hostCall } from './host-fetch.js';
import { recorder } from './log-recorder.js';
import { TEST_NOW } from './time.js';

export const NORD_FILE = resolve(import.meta.dirname, '../fixtures/hosting/nord-studio.json');
export const KEYS: Record<string, string> = {
  biz_maple_pine: 'salon-admin-key-0123456789',
  biz_nord_studio: 'nord-admin-key-0123456789',
};
export const SALON = { id: 'biz_maple_pine', host: 'salon.localhost', service: 'svc_haircut', name: 'Maple & Pine' };
export const NORD = { id: 'biz_nord_studio', host: 'nord.localhost', service: 'svc_nord_trim', name: 'Nord Studio' };
export type Biz = typeof SALON;
export const OPERATOR_HOST = 'operator.localhost';
export const OPERATOR_KEY = 'operator-key-0123456789abcdef';

/** The salon (the built-in demo) as the directory holds it, with any field replaced. */
export const salonEntry = (more: Partial<NewHostedBusiness> = {}): NewHostedBusiness => ({
  id: SALON.id,
  hosts: [SALON.host],
  origin: 'demo',
  addedAt: 1,
  ...more,
});

/** Nord Studio (its business file) as the directory holds it, with any field replaced. */
export const nordEntry = (more: Partial<NewHostedBusiness> = {}): NewHostedBusiness => ({
  id: NORD.id,
  hosts: [NORD.host],
  origin: NORD_FILE,
  addedAt: 2,
  ...more,
});

/** Nord with its trim paid when booking (a copy of its file in `dir`), so each business has a service paid online. */
export function nordPaidAtBooking(dir: string, more: Partial<NewHostedBusiness> = {}): NewHostedBusiness {
  const nord = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
  nord.services[0].policies.payment_timing = 'at_booking';
  const file = join(dir, 'nord-studio.json');
  writeFileSync(file, JSON.stringify(nord));
  return nordEntry({ origin: file, ...more });
}

export interface Deployment {
  dir: string;
  directory: DeploymentDirectory;
  hosting: Hosting;
  port: string;
  log: ReturnType<typeof recorder>;
  /** The one-time codes each business's OAuth sign-up sent, by email (deployTwo). */
  codes: Map<string, string>;
  url(b: Biz | string): string;
  /** The deployment's directory opened again, as another process (`host ...` beside `host serve`) opens it. */
  another(): Promise<DeploymentDirectory>;
  /** The PostgreSQL schemas to drop when done (the directory's and each business's). */
  schemas: string[];
}

export interface HostingSetup
  extends Pick<
    HostingOptions,
    'route' | 'trustProxy' | 'metricsLabelled' | 'maxLoaded' | 'paymentConnect' | 'workers'
  > {
  /** A postgres:// URL: the directory and every business on it, in schemas of this deployment's own. */
  db?: string;
  /** The businesses the directory starts with (default the salon and Nord); given the temp folder. */
  businesses?: NewHostedBusiness[] | ((dir: string) => NewHostedBusiness[]);
  /** Over the base options: sandbox, no sweep, the fixed clock, loopback profiles allowed. */
  server?: Partial<HostedServerOptions>;
  serverFor?: (b: HostedBusiness, dir: string) => Partial<HostedServerOptions>;
  /** The operator's door at OPERATOR_HOST, opened by OPERATOR_KEY (`resolveTxt`: the injected DNS). */
  operator?: boolean | { resolveTxt?: TxtResolver };
  /** The temp folder's name starts so (default `usp-hosting-`). */
  prefix?: string;
  /** With `db`: every business in one schema keyed by business (`host serve --pg-keyed`), not a schema each. */
  keyed?: boolean;
}

/** A hosting deployment listening on 127.0.0.1 at a port of its own. */
export async function deployHosting(o: HostingSetup = {}): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), o.prefix ?? 'usp-hosting-'));
  const prefix = schemaName('hosting');
  const another = () =>
    openDeploymentDirectoryAt({ db: o.db, path: join(dir, 'deployment.db') }, { schema: `${prefix}_directory` });
  const directory = await another();
  const businesses =
    typeof o.businesses === 'function' ? o.businesses(dir) : (o.businesses ?? [salonEntry(), nordEntry()]);
  for (const b of businesses) await directory.add(b);
  const schemas = o.db ? [`${prefix}_directory`, ...businesses.map((b) => `${prefix}_${b.id}`)] : [];
  // Keyed: both businesses in one schema of this deployment's, beside its template.
  const pgKeyed = o.db && o.keyed ? `${prefix}_keyed` : undefined;
  if (pgKeyed) schemas.push(pgKeyed, `${pgKeyed}_template`);
  const log = recorder();
  const operator = o.operator
    ? {
        host: OPERATOR_HOST,
        keyHashes: [hashApiKey(OPERATOR_KEY)],
        ...(typeof o.operator === 'object' ? o.operator : {}),
      }
    : undefined;
  const serverFor = o.serverFor;
  const hosting = createHosting({
    directory,
    dataDir: dir,
    db: o.db,
    schemaPrefix: `${prefix}_`,
    pgKeyed,
    server: {
      sandbox: true,
      sweepIntervalMs: 0,
      clock: new ManualClock(TEST_NOW),
      security: { allowLoopbackProfiles: true },
      ...o.server,
    },
    serverFor: serverFor && ((b) => serverFor(b, dir)),
    log: log.log,
    operator,
    route: o.route,
    trustProxy: o.trustProxy,
    metricsLabelled: o.metricsLabelled,
    maxLoaded: o.maxLoaded,
    paymentConnect: o.paymentConnect,
    workers: o.workers,
  });
  const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
  return {
    dir,
    directory,
    hosting,
    port,
    log,
    codes: new Map(),
    url: (b) => `http://${typeof b === 'string' ? b : b.host}:${port}`,
    another,
    schemas,
  };
}

/** Each business's mail written to a folder of its own under the deployment's, as `host serve --mail-dir` does. */
export const mailIn = (b: HostedBusiness, dir: string) => hostedMail({ 'mail-dir': join(dir, 'mail') } as Flags, b);

/** The salon and Nord, each with its admin key and its mail in a folder of its own (unless `serverFor` says otherwise), OAuth codes kept. */
export async function deployTwo(
  o: Pick<
    HostingSetup,
    | 'route'
    | 'operator'
    | 'trustProxy'
    | 'metricsLabelled'
    | 'db'
    | 'keyed'
    | 'maxLoaded'
    | 'businesses'
    | 'server'
    | 'serverFor'
  > = {},
): Promise<Deployment> {
  const codes = new Map<string, string>();
  const d = await deployHosting({
    ...o,
    server: {
      ...o.server,
      oauth: {
        loginLimits: { perAddress: 1000, signupsPerAddress: 1000 },
        deliverCode: (email: string, code: string) => void codes.set(email, code),
        registration: { perAddressPerMinute: 1000, totalPerMinute: 1000, perRegistrant: 1000 },
      },
    },
    serverFor: (b, dir) => ({ adminKeys: [KEYS[b.id]!], mail: mailIn(b, dir), ...o.serverFor?.(b, dir) }),
  });
  return { ...d, codes };
}

export async function undeploy(d: Deployment | undefined): Promise<void> {
  if (!d) return;
  await d.hosting.close();
  for (const s of d.schemas) await dropSchema(s);
  rmSync(d.dir, { recursive: true, force: true });
}

const dayFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/**
 * A booking of the first free slot of the coming days at `b`'s host name on `port` (days from the real
 * clock: for `host serve` children): its status and id; a refused query's status and text (a business
 * suspended), or status 0 when no slot is free in ten days.
 */
export async function bookFirstFree(
  port: string,
  b: { id?: string; host: string; service: string },
): Promise<{ status: number; id?: string; text: string }> {
  const headers = { 'USP-Agent': 'profile="https://platform.example/profiles/agent.json"' };
  for (let n = 2; n < 12; n++) {
    const q = await hostCall(`http://${b.host}:${port}/availability/query`, {
      method: 'POST',
      headers,
      body: { service_id: b.service, start_date: dayFromNow(n), end_date: dayFromNow(n), limit: 1 },
    });
    const slot = q.body?.slots?.[0];
    if (!slot) {
      if (q.status !== 200 || q.body?.suspended || /suspend/i.test(q.text)) return { status: q.status, text: q.text };
      continue;
    }
    const made = await hostCall(`http://${b.host}:${port}/bookings`, {
      method: 'POST',
      headers,
      body: {
        service_id: b.service,
        slot_id: slot.id,
        buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      },
    });
    return { status: made.status, id: made.body?.booking?.id, text: made.text };
  }
  return { status: 0, text: 'no free slot in ten days' };
}
