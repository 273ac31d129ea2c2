/**
 * The CORS checks of the conformance suite (9.6), proven able to fail: our server with a browser
 * platform allowed passes both; one without CORS fails cors.allowed-origin; a proxy that hands
 * CORS with credentials to any origin fails cors.foreign-origin; one that states its rate limit
 * but not what is left of it fails headers.ratelimit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runSuite, type SuiteOptions } from '../../src/conformance/index.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';
import { specDir } from '../support/spec.js';
import { startBrokenProxy } from './broken-proxy.js';

const PLATFORM = 'https://platform.example';
const options = (url: string, o: Partial<SuiteOptions> = {}): SuiteOptions => ({
  url,
  specDir,
  allowWrites: false,
  registry: false,
  raceWidth: 2,
  timeoutMs: 10_000,
  ...o,
});

async function start(corsOrigins?: string[]): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    corsOrigins,
  });
  return { server, url: await server.listen(0, '127.0.0.1') };
}
const verdicts = async (url: string, origin?: string) =>
  Object.fromEntries(
    (await runSuite(options(url, { only: ['cors.'], origin }))).results.map((r) => [r.id, `${r.verdict}: ${r.reason}`]),
  );

let withCors: { server: UspServer; url: string };
beforeAll(async () => {
  withCors = await start([PLATFORM]);
});
afterAll(async () => {
  await withCors?.server.close();
});

describe('the CORS checks (9.6)', () => {
  test('our server with --cors-origin: both pass; without --origin the allowed-origin check skips', async () => {
    const v = await verdicts(withCors.url, PLATFORM);
    expect(v['cors.foreign-origin']).toMatch(/^PASS/);
    expect(v['cors.allowed-origin']).toMatch(/^PASS/);
    expect((await verdicts(withCors.url))['cors.allowed-origin']).toMatch(/^SKIP: no --origin/);
  });

  test('a server that gives the REST door no CORS fails cors.allowed-origin', async () => {
    const none = await start();
    try {
      expect((await verdicts(none.url, PLATFORM))['cors.allowed-origin']).toMatch(/^FAIL/);
    } finally {
      await none.server.close();
    }
  });

  test('RateLimit: ours states what is left (headers.ratelimit passes); a business sending only RateLimit-Policy fails it', async () => {
    const ok = await runSuite(options(withCors.url, { only: ['headers.ratelimit'] }));
    expect(ok.results[0].verdict).toBe('PASS');
    const proxy = await startBrokenProxy(withCors.url, 'hides-ratelimit-status');
    try {
      const r = await runSuite(options(proxy.url, { only: ['headers.ratelimit'] }));
      expect(r.results[0]).toMatchObject({ verdict: 'FAIL', reason: expect.stringContaining('what is left') });
    } finally {
      await proxy.close();
    }
  });

  test('a business that reflects any origin with credentials fails cors.foreign-origin', async () => {
    const proxy = await startBrokenProxy(withCors.url, 'reflects-any-origin');
    try {
      expect((await verdicts(proxy.url))['cors.foreign-origin']).toMatch(/^FAIL/);
    } finally {
      await proxy.close();
    }
  });
});
