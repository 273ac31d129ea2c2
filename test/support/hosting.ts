/**
 * Two businesses hosted by one listener on their `*.localhost` names (issue 39), for the hosting
 * tests: the demo salon and Nord Studio (test/fixtures/hosting), each with its own admin key and
 * its mail in a folder of its own, on the fixed clock, in a temp folder of the test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ManualClock } from '../../src/operations/index.js';
import { openDeploymentDirectory, type DeploymentDirectory } from '../../src/store/index.js';
import { createHosting, type Hosting, type HostingOptions } from '../../src/server/hosting.js';
import { hostedMail } from '../../src/server/cli/host.js';
import type { Flags } from '../../src/server/cli/flags.js';
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

export interface Deployment {
  dir: string;
  directory: DeploymentDirectory;
  hosting: Hosting;
  port: string;
  log: ReturnType<typeof recorder>;
  /** The one-time codes each business's OAuth sign-up sent, by email. */
  codes: Map<string, string>;
  url(b: Biz | string): string;
}

/** The salon and Nord hosted on SQLite in a new temp folder (`route`: the hosting's test seam). */
export async function deployTwo(
  o: Pick<HostingOptions, 'route' | 'operator' | 'trustProxy' | 'metricsLabelled'> = {},
): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'usp-hosting-'));
  const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
  directory.add({ id: SALON.id, hosts: [SALON.host], origin: 'demo', addedAt: 1 });
  directory.add({ id: NORD.id, hosts: [NORD.host], origin: NORD_FILE, addedAt: 2 });
  const log = recorder();
  const codes = new Map<string, string>();
  const hosting = createHosting({
    directory,
    dataDir: dir,
    server: {
      sandbox: true,
      sweepIntervalMs: 0,
      clock: new ManualClock(TEST_NOW),
      security: { allowLoopbackProfiles: true },
      oauth: {
        loginLimits: { perAddress: 1000, signupsPerAddress: 1000 },
        deliverCode: (email: string, code: string) => void codes.set(email, code),
        registration: { perAddressPerMinute: 1000, totalPerMinute: 1000, perRegistrant: 1000 },
      },
    },
    serverFor: (b) => ({ adminKeys: [KEYS[b.id]!], mail: hostedMail({ 'mail-dir': join(dir, 'mail') } as Flags, b) }),
    log: log.log,
    route: o.route,
    operator: o.operator,
    trustProxy: o.trustProxy,
    metricsLabelled: o.metricsLabelled,
  });
  const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
  return {
    dir,
    directory,
    hosting,
    port,
    log,
    codes,
    url: (b) => `http://${typeof b === 'string' ? b : b.host}:${port}`,
  };
}

export async function undeploy(d: Deployment | undefined): Promise<void> {
  if (!d) return;
  await d.hosting.close();
  rmSync(d.dir, { recursive: true, force: true });
}
