/**
 * Discovery as a platform does it: a business profile is reused while its Cache-Control allows,
 * revalidated with its ETag once stale (a 304 keeps it), fetched afresh under no-store, and refused
 * when it is not a profile; negotiation keeps what both sides declare and prunes an extension whose
 * base is not agreed, as the platform side computes it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileCache, UspError, negotiate, type BusinessProfile } from '../../src/client/index.js';
import { TEST_NOW } from '../support/time.js';

const PROFILE: BusinessProfile = {
  usp: {
    version: '2026-08-20',
    capabilities: {
      'dev.usp-protocol.services.bookings': [{ version: '2026-08-20' }],
      'dev.usp-protocol.services.waitlist': [{ version: '2026-08-20', extends: 'dev.usp-protocol.services.bookings' }],
      'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }],
    },
  },
};

let server: Server;
let base = '';
const seen: Array<{ path: string; ifNoneMatch?: string }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({
      path: req.url ?? '',
      ...(req.headers['if-none-match'] ? { ifNoneMatch: String(req.headers['if-none-match']) } : {}),
    });
    if (req.url === '/cached/.well-known/usp') {
      if (req.headers['if-none-match'] === '"v1"')
        return void res.writeHead(304, { ETag: '"v1"', 'Cache-Control': 'max-age=60' }).end();
      return void res
        .writeHead(200, { 'Content-Type': 'application/json', ETag: '"v1"', 'Cache-Control': 'public, max-age=60' })
        .end(JSON.stringify(PROFILE));
    }
    if (req.url === '/nostore/.well-known/usp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
        .end(JSON.stringify(PROFILE));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"hello":"world"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the profile cache follows the business profile HTTP caching headers', () => {
  it('a fresh profile is not fetched again; a stale one is revalidated with If-None-Match and a 304 keeps it', async () => {
    let now = TEST_NOW;
    const cache = new ProfileCache({ now: () => now });
    const url = `${base}/cached/.well-known/usp`;
    const from = seen.length;
    await cache.get(url);
    now += 59_000;
    await cache.get(url);
    expect(seen.slice(from)).toEqual([{ path: '/cached/.well-known/usp' }]);
    now += 2_000;
    const again = await cache.get(url);
    expect(seen.slice(from)).toEqual([
      { path: '/cached/.well-known/usp' },
      { path: '/cached/.well-known/usp', ifNoneMatch: '"v1"' },
    ]);
    expect(again.profile.usp.version).toBe('2026-08-20');
    expect(again.freshUntil).toBe(now + 60_000);
  });

  it('no-store is fetched every time; force fetches a fresh one too', async () => {
    const cache = new ProfileCache({ now: () => TEST_NOW });
    const from = seen.length;
    await cache.get(`${base}/nostore/.well-known/usp`);
    await cache.get(`${base}/nostore/.well-known/usp`);
    await cache.get(`${base}/cached/.well-known/usp`);
    await cache.get(`${base}/cached/.well-known/usp`, { force: true });
    expect(seen.slice(from).map((s) => s.path)).toEqual([
      '/nostore/.well-known/usp',
      '/nostore/.well-known/usp',
      '/cached/.well-known/usp',
      '/cached/.well-known/usp',
    ]);
  });

  it('a document that is not a profile is refused as a verification error naming why', async () => {
    const err = await new ProfileCache().get(`${base}/other/.well-known/usp`).catch((e) => e);
    expect(err).toBeInstanceOf(UspError);
    expect(err).toMatchObject({ kind: 'verification', code: 'profile_malformed', next: 'give_up' });
    expect(err.message).toContain('usp.version');
  });
});

describe('negotiation keeps what both declare and prunes orphaned extensions', () => {
  it('a platform without bookings gets no waitlist (its base), and keeps the catalog', () => {
    const n = negotiate(PROFILE, {
      'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }],
      'dev.usp-protocol.services.waitlist': [{ version: '2026-08-20' }],
    });
    expect(Object.keys(n.capabilities)).toEqual(['dev.usp-protocol.services.catalog']);
    expect(n.pruned).toEqual(['dev.usp-protocol.services.waitlist']);
  });

  it('a capability at a version only one side lists is not agreed', () => {
    const n = negotiate(PROFILE, {
      'dev.usp-protocol.services.bookings': [{ version: '2026-01-15' }],
      'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }],
    });
    expect(Object.keys(n.capabilities)).toEqual(['dev.usp-protocol.services.catalog']);
  });
});
