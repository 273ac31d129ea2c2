/**
 * The conformance suite, run on ourselves and proven able to fail: against our server (a sandbox,
 * and one that requires platform authentication) every MUST-level check passes; against a proxy
 * that breaks one rule, the check for that rule fails. The servers run on the system clock and the
 * suite derives every date from what the server says (availability_hint.generated_at), so nothing
 * depends on the day the test runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runSuite, type CheckResult, type SuiteOptions } from '../../src/conformance/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { specDir } from '../support/spec.js';
import { ADMIN_KEY, demoBusiness } from '../support/server.js';
import { startBrokenProxy, type BrokenProxy, type Variant } from './broken-proxy.js';
import { selfSigned } from '../support/tls.js';
import { openApiProblems } from '../../src/conformance/checks/discovery.js';

const options = (url: string, o: Partial<SuiteOptions> = {}): SuiteOptions => ({
  url,
  specDir,
  allowWrites: false,
  registry: false,
  raceWidth: 6,
  timeoutMs: 10_000,
  ...o,
});

async function start(sandbox: boolean, business = demoBusiness()): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business,
    db: ':memory:',
    sandbox,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    // The suite makes about thirty bookings a run from one address: above the default per-address
    // allowance of a production server (20 a minute), so the test lifts it as an operator would.
    security: { allowLoopbackProfiles: true, rateLimits: { bookings: 200, holds: 200 } },
  });
  return { server, url: await server.listen(0, '127.0.0.1') };
}

const mustFailures = (rs: CheckResult[]) =>
  rs.filter((r) => r.level === 'MUST' && r.verdict === 'FAIL').map((r) => `${r.id}: ${r.reason}`);
const verdict = (rs: CheckResult[], id: string) => rs.find((r) => r.id === id);

let sandbox: { server: UspServer; url: string };
let secured: { server: UspServer; url: string };

beforeAll(async () => {
  sandbox = await start(true);
  secured = await start(false);
});
afterAll(async () => {
  await sandbox?.server.close();
  await secured?.server.close();
});

describe('usp-server conformance against our own server', () => {
  test('serve --demo (a sandbox): every MUST-level check passes, and the write checks ran', async () => {
    const report = await runSuite(options(sandbox.url));
    expect(mustFailures(report.results)).toEqual([]);
    expect(report.passed).toBe(true);
    for (const id of [
      'holds.exclusive',
      'holds.group-over-capacity',
      'races.concurrent-holds',
      'races.concurrent-creates',
      'idempotency.replay',
      'idempotency.conflict',
      'conditional.if-match',
      'lifecycle.illegal-move',
      'envelope.mcp',
      'mapping.mcp-total',
      'pagination.feed-null-cursor',
      'errors.mcp-unknown-tool',
      'discovery.openapi',
      'discovery.lookup-maximum',
      'catalog.lookup-fifty',
      'lifecycle.invalid-transition',
      'errors.mcp-unknown-tool-no-code',
      'errors.rest-405',
      'catalog.unpayable-service',
      'catalog.lookup-unresolved',
      'errors.path-not-found',
      'payments.confirm-payment-unknown-booking',
      'money.digit-strings',
      'errors.families-disjoint',
    ]) {
      expect(verdict(report.results, id)?.verdict, id).toBe('PASS');
    }
  }, 120_000);

  test('a --require-auth server: every MUST-level check passes, authentication and negotiation included', async () => {
    const report = await runSuite(options(secured.url, { allowWrites: true }));
    expect(mustFailures(report.results)).toEqual([]);
    for (const id of [
      'auth.required',
      'auth.pop-accepted',
      'auth.pop-replayed',
      'auth.pop-audience',
      'auth.alg-none',
      'auth.key-mismatch',
      'auth.downgrade',
      'versioning.newer-refused',
      'versioning.older-served',
      'negotiation.empty-intersection',
      'negotiation.orphaned-extension',
      'races.concurrent-creates',
      'lifecycle.invalid-transition',
      'errors.rest-405',
      'negotiation.extension-data-pruned',
      'errors.path-not-found',
    ]) {
      expect(verdict(report.results, id)?.verdict, id).toBe('PASS');
    }
  }, 120_000);

  test('served with no payment provider: the services paid when booking are suspended, so catalog.unpayable-service does not fail and holds.suspended-service passes', async () => {
    const report = await runSuite(
      options(secured.url, { allowWrites: true, only: ['catalog.unpayable-service', 'holds.suspended-service'] }),
    );
    expect(verdict(report.results, 'catalog.unpayable-service')?.verdict).not.toBe('FAIL');
    expect(verdict(report.results, 'holds.suspended-service')?.verdict).toBe('PASS');
  });

  test('a live business without --allow-writes is checked read-only: the write checks skip and say why', async () => {
    const report = await runSuite(options(secured.url, { only: ['holds.exclusive', 'discovery.profile-schema'] }));
    expect(verdict(report.results, 'holds.exclusive')).toMatchObject({
      verdict: 'SKIP',
      reason: expect.stringContaining('--allow-writes'),
    });
    expect(verdict(report.results, 'discovery.profile-schema')?.verdict).toBe(specDir ? 'PASS' : 'SKIP');
  });

  test('a suspended service: the check that catches availability and holds on it passes on ours', async () => {
    const def = demoBusiness();
    const business = {
      ...def,
      services: def.services.map((s) => (s.id === 'svc_color_consult' ? { ...s, status: 'suspended' as const } : s)),
    };
    const s = await start(true, business);
    try {
      const report = await runSuite(options(s.url, { only: ['holds.suspended-service'] }));
      expect(verdict(report.results, 'holds.suspended-service')?.verdict).toBe('PASS');
    } finally {
      await s.server.close();
    }
  });
});

describe('each check fails on the variant that breaks its rule', () => {
  const cases: Array<{ variant: Variant; checks: string[]; secured?: boolean }> = [
    { variant: 'drops-envelope', checks: ['envelope.rest'] },
    { variant: 'double-books', checks: ['holds.exclusive', 'races.concurrent-holds', 'races.concurrent-creates'] },
    { variant: 'ignores-if-match', checks: ['conditional.if-match'] },
    { variant: 'answers-500', checks: ['errors.no-server-error', 'errors.rest-protocol'] },
    { variant: 'accepts-replayed-proof', checks: ['auth.pop-replayed'], secured: true },
    { variant: 'signs-webhooks-wrongly', checks: ['webhooks.signed'] },
    { variant: 'skips-pruning', checks: ['negotiation.orphaned-extension'], secured: true },
    { variant: '409-for-invalid-transition', checks: ['lifecycle.invalid-transition'] },
    { variant: 'unknown-tool-with-code', checks: ['errors.mcp-unknown-tool-no-code'] },
    { variant: 'minted-405', checks: ['errors.rest-405'] },
    { variant: 'offers-unpayable-service', checks: ['catalog.unpayable-service'] },
    { variant: 'lookup-says-service-not-found', checks: ['catalog.lookup-unresolved'] },
    { variant: 'leaks-extension-data', checks: ['negotiation.extension-data-pruned'], secured: true },
    { variant: 'availability-says-service-not-found', checks: ['errors.families-disjoint'] },
    { variant: 'integer-money-only', checks: ['money.digit-strings'] },
    { variant: 'not-found-as-outcome', checks: ['errors.path-not-found', 'payments.confirm-payment-unknown-booking'] },
  ];
  for (const c of cases) {
    test(`a business that ${c.variant.replace(/-/g, ' ')}: ${c.checks.join(', ')} fail`, async () => {
      let proxy: BrokenProxy | undefined;
      try {
        proxy = await startBrokenProxy(c.secured ? secured.url : sandbox.url, c.variant);
        const report = await runSuite(options(proxy.url, { only: c.checks, allowWrites: true }));
        for (const id of c.checks)
          expect(verdict(report.results, id)?.verdict, `${id}: ${verdict(report.results, id)?.reason}`).toBe('FAIL');
        expect(report.passed).toBe(false);
      } finally {
        await proxy?.close();
      }
    }, 60_000);
  }

  test('an honest proxy changes nothing: the same checks pass through it', async () => {
    const proxy = await startBrokenProxy(sandbox.url, 'ignores-nothing' as Variant);
    try {
      const report = await runSuite(
        options(proxy.url, {
          only: [
            'envelope.rest',
            'holds.exclusive',
            'conditional.if-match',
            'errors.no-server-error',
            'webhooks.signed',
          ],
        }),
      );
      expect(mustFailures(report.results)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe('a credential re-issued on a reschedule past it (newer 5.3.6, a SHOULD)', () => {
  test('ours passes credentials.reschedule-reissue; a business whose reschedule answer carries no new credential fails it (a SHOULD: the run still passes)', async () => {
    const ours = await runSuite(options(sandbox.url, { only: ['credentials.reschedule-reissue'] }));
    expect(verdict(ours.results, 'credentials.reschedule-reissue')?.verdict).toBe('PASS');
    const proxy = await startBrokenProxy(sandbox.url, 'keeps-old-credential');
    try {
      const report = await runSuite(
        options(proxy.url, { only: ['credentials.reschedule-reissue'], allowWrites: true }),
      );
      expect(verdict(report.results, 'credentials.reschedule-reissue')?.verdict).toBe('FAIL');
      expect(report.passed).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe('the served OpenAPI check', () => {
  test('fails on a document without answer schemas, the 200 outcome of a creation, webhooks or security schemes', () => {
    const bare = {
      openapi: '3.1.0',
      paths: { '/bookings': { post: { responses: { '201': { description: 'Created' } } } } },
    };
    expect(openApiProblems(bare)).toEqual([
      'no components.securitySchemes',
      'no webhooks section',
      'POST /bookings: a success answer without a schema',
      'POST /bookings: creates (201) but declares no 200 business-outcome answer',
    ]);
  });
});

describe('rate limits are announced (10.2.2)', () => {
  test('our REST answers carry RateLimit-Policy (headers.ratelimit passes); with rate limits off there is none and the check fails', async () => {
    const on = await runSuite(options(sandbox.url, { only: ['headers.ratelimit'] }));
    expect(verdict(on.results, 'headers.ratelimit')?.verdict).toBe('PASS');
    const list = await fetch(`${sandbox.url}/services/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(list.headers.get('ratelimit-policy')).toBe('"public";q=12000;w=60');
    const off = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    const url = await off.listen(0, '127.0.0.1');
    try {
      const report = await runSuite(options(url, { only: ['headers.ratelimit'] }));
      expect(verdict(report.results, 'headers.ratelimit')?.verdict).toBe('FAIL');
      expect(report.passed).toBe(true);
    } finally {
      await off.close();
    }
  });
});

describe('transport SHOULDs the suite checks (10.2.1)', () => {
  test('over https our server sends Strict-Transport-Security, and headers.hsts passes; over plain http it is absent', async () => {
    const tls = selfSigned();
    const https = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      tls,
    });
    const url = await https.listen(0, '127.0.0.1');
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    // The test's own self-signed certificate: trusted for this one run of the suite.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const report = await runSuite(options(url, { only: ['headers.hsts'] }));
      expect(verdict(report.results, 'headers.hsts')?.verdict).toBe('PASS');
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
      await https.close();
    }
    const plain = await fetch(`${sandbox.url}/.well-known/usp`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });

  test('behind a trusted proxy that says https, Strict-Transport-Security is sent', async () => {
    const s = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      trustProxy: true,
    });
    const url = await s.listen(0, '127.0.0.1');
    try {
      const r = await fetch(`${url}/.well-known/usp`, { headers: { 'X-Forwarded-Proto': 'https' } });
      expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      await s.close();
    }
  });
});
