/**
 * Libraries only some deployments need are loaded when they are used, not at start (issue 40, peak
 * memory): the demo server, at rest, has not loaded the Stripe SDK, the CalDAV client and its XML
 * parsers, nodemailer, oidc-provider or pino-pretty; a message mailed loads nodemailer, the OAuth
 * metadata loads oidc-provider, `--payments stripe` loads the SDK, and a feed listed loads ical.js. Through the built command
 * line, with a module hook (`--import`, written into this test's folder) that records every package
 * file the child loads: ESM resolutions through `module.register`, CommonJS through `Module._load`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { REPO_ROOT, startServeCli } from '../support/cli.js';
import { BUYER, day, PLATFORM } from '../support/server.js';
import { calendar, vevent } from '../calendars/fixtures.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { startStripeEmulator } from '../support/stripe-emulator.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-lazy-libs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = join(dir, 'record-modules.mjs');
writeFileSync(
  HOOK,
  `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const out = process.env.USP_TEST_MODULE_LOG;
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  try { appendFileSync(out, Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {}
  return loaded;
};
const hooks = \`import { appendFileSync } from 'node:fs';
export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(\${JSON.stringify(out)}, r.url + '\\\\n'); return r; }\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
`,
);

const OPTIONAL = ['stripe', 'tsdav', 'xml-js', 'sax', 'ical.js', 'nodemailer', 'oidc-provider', 'pino-pretty'];

/** The packages the child has loaded so far (by their folder under node_modules). */
function loadedPackages(log: string): Set<string> {
  const out = new Set<string>();
  if (!existsSync(log)) return out;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (m) out.add(m[1]!);
  }
  return out;
}

async function serve(name: string, args: string[]) {
  ensureBuilt();
  const log = join(dir, `${name}.log`);
  const s = await startServeCli([...args, '--port', '0'], {
    cwd: dir,
    env: {
      USP_CLOCK: `fixed:${new Date(TEST_NOW).toISOString()}`,
      XDG_DATA_HOME: join(dir, `${name}-data`),
      NODE_OPTIONS: `--import ${HOOK}`,
      USP_TEST_MODULE_LOG: log,
    },
    timeoutMs: 60_000,
  });
  return { s, loaded: () => loadedPackages(log) };
}

const SLOW = 120_000;
const AGENT = { 'usp-agent': `profile="${PLATFORM}"` };
const get = (url: string) => fetch(url, { headers: AGENT });

describe('optional libraries are loaded when used', () => {
  it(
    'the demo at rest has none loaded; a booking mailed loads nodemailer, the OAuth metadata oidc-provider',
    async () => {
      const mail = join(dir, 'mail');
      const { s, loaded } = await serve('demo', ['--demo', '--mail-dir', mail]);
      try {
        // The server answers (so its composition is done) and still has loaded none of them.
        expect((await get(`${s.url}/services/svc_haircut`)).status).toBe(200);
        const atRest = loaded();
        expect(atRest.has('hono'), 'the hook records loads').toBe(true);
        expect(OPTIONAL.filter((p) => atRest.has(p))).toEqual([]);

        const q = await fetch(`${s.url}/availability/query`, {
          method: 'POST',
          headers: { ...AGENT, 'content-type': 'application/json' },
          body: JSON.stringify({ service_id: 'svc_haircut', start_date: day(3), end_date: day(3) }),
        });
        expect(q.status).toBe(200);
        const slot = ((await q.json()) as { slots: Array<{ id: string }> }).slots[0]!;
        const b = await fetch(`${s.url}/bookings`, {
          method: 'POST',
          headers: { ...AGENT, 'content-type': 'application/json', 'idempotency-key': 'lazy-libs-booking-1' },
          body: JSON.stringify({ service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER }),
        });
        expect(b.status, await b.clone().text()).toBe(201);
        await waitFor(
          () => existsSync(mail) && readdirSync(mail).some((f) => f.endsWith('.eml')),
          30_000,
          'a mail written',
        );
        expect(loaded().has('nodemailer')).toBe(true);
        expect(loaded().has('stripe')).toBe(false);

        const meta = await get(`${s.url}/.well-known/oauth-authorization-server`);
        expect(meta.status).toBe(200);
        expect(loaded().has('oidc-provider')).toBe(true);
      } finally {
        await s.stop();
      }
    },
    SLOW,
  );

  it(
    '--payments stripe loads the Stripe SDK',
    async () => {
      const stripe = await startStripeEmulator({ now: () => TEST_NOW });
      try {
        const { s, loaded } = await serve('stripe', [
          '--demo',
          '--payments',
          'stripe',
          '--stripe-secret-key',
          stripe.secretKey,
          '--stripe-webhook-secret',
          stripe.webhookSecret,
          '--stripe-api-url',
          stripe.url,
        ]);
        try {
          expect((await get(`${s.url}/services/svc_haircut`)).status).toBe(200);
          expect(loaded().has('stripe')).toBe(true);
        } finally {
          await s.stop();
        }
      } finally {
        await stripe.close();
      }
    },
    SLOW,
  );

  it(
    'a calendar feed listed loads ical.js with its first read (tsdav stays out: no CalDAV calendar)',
    async () => {
      let reads = 0;
      const ics = calendar([vevent({ UID: 'lazy-1', DTSTART: '20261203T150000Z', DTEND: '20261203T160000Z' })]);
      const feed = createServer((_req, res) => {
        reads++;
        res.writeHead(200, { 'content-type': 'text/calendar' }).end(ics);
      });
      await new Promise<void>((r) => feed.listen(0, '127.0.0.1', () => r()));
      const port = (feed.address() as { port: number }).port;
      const def = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
      def.resources[0].calendars = [{ type: 'ics', url: `http://127.0.0.1:${port}/staff.ics` }];
      const file = join(dir, 'with-feed.json');
      writeFileSync(file, JSON.stringify(def));
      try {
        const { s, loaded } = await serve('feed', ['--config', file, '--allow-loopback-profiles']);
        try {
          await waitFor(() => loaded().has('ical.js'), 30_000, 'ical.js loaded by the first read');
          expect(reads).toBeGreaterThan(0);
          expect(loaded().has('tsdav')).toBe(false);
          expect(loaded().has('stripe')).toBe(false);
        } finally {
          await s.stop();
        }
      } finally {
        await new Promise((r) => feed.close(r));
      }
    },
    SLOW,
  );
});
