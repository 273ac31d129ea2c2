/**
 * Platform profile resolution (spec §8.2.2-8.2.3) and its SSRF hardening. Servers listen only on
 * 127.0.0.1; hostnames resolve through an injected lookup; nothing touches an external network.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonWebKey } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { SecurityFailure } from '../../src/security/failures.js';
import { contentDigest } from '../../src/security/content-digest.js';
import {
  generateSigningKey,
  signRequest,
  uspRequiredComponents,
  verifyRequestSignature,
} from '../../src/security/http-signatures.js';
import {
  createProfileResolver,
  findKey,
  pinnedFetch,
  type ProfileFetch,
  type ProfileResolverOptions,
} from '../../src/security/platform-profiles.js';
import { isSpecialUseAddress } from '../../src/security/ssrf.js';

// ------------------------------------------------------------------------------------------------
// Fixtures
// ------------------------------------------------------------------------------------------------

const PROFILE = {
  usp: {
    version: '2026-08-20',
    capabilities: {
      'dev.usp-protocol.services.bookings': [
        {
          version: '2026-08-20',
          spec: 'https://usp-protocol.dev/specification#5-booking-lifecycle',
          schema: 'https://usp-protocol.dev/schemas/services/booking.json',
        },
      ],
    },
  },
};

interface LocalServer {
  base: string;
  /** Requests received, by path. */
  hits: string[];
  close(): Promise<void>;
}

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const local: LocalServer = {
    base: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(local);
  return local;
}

function json(body: unknown, headers: Record<string, string> = {}) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

async function failureCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SecurityFailure) return err.code;
    throw err;
  }
  return 'resolved';
}

/** A transport that must never be reached. */
function forbiddenTransport(): { fetchImpl: ProfileFetch; calls: () => number } {
  let calls = 0;
  return {
    fetchImpl: async () => {
      calls++;
      throw new Error('no connection may be made');
    },
    calls: () => calls,
  };
}

function clock(start = 1_800_000_000_000) {
  let t = start;
  return { now: () => t, advance: (seconds: number) => (t += seconds * 1000) };
}

function resolver(opts: Partial<ProfileResolverOptions> = {}) {
  return createProfileResolver({ allowLoopback: true, ...opts });
}

// ------------------------------------------------------------------------------------------------
// Special-use addresses
// ------------------------------------------------------------------------------------------------

describe('special-use addresses (RFC 6890) are refused, both families', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.0.0.5', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['0.1.2.3', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['240.0.0.1', true],
    ['192.0.0.8', true],
    ['192.0.2.10', true],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['198.18.0.1', true],
    ['198.19.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['fd00::1', true],
    ['fc00::1', true],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['2002:a00:5::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:10.0.0.5', true],
    ['64:ff9b::a00:5', true],
    ['not-an-ip', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['172.32.0.1', false],
    ['100.128.0.1', false],
    ['93.184.216.34', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::808:808', false],
    ['2606:4700:4700::1111', false],
    ['[2001:4860:4860::8888]', false],
  ])('%s is special-use: %s', (ip, special) => {
    expect(isSpecialUseAddress(ip)).toBe(special);
  });
});

// ------------------------------------------------------------------------------------------------
// Fetching
// ------------------------------------------------------------------------------------------------

describe('a platform profile is fetched only from a vetted address', () => {
  test('a profile on 127.0.0.1 is fetched when loopback is allowed (development)', async () => {
    const server = await serve(json(PROFILE));
    const profile = await resolver().resolve(`${server.base}/agent.json`);
    expect(profile).toMatchObject({
      url: `${server.base}/agent.json`,
      version: '2026-08-20',
      keys: [],
      signing_keys: [],
    });
    expect(Object.keys(profile.capabilities)).toEqual(['dev.usp-protocol.services.bookings']);
    expect(server.hits).toEqual(['/agent.json']);
  });

  test('http://localhost is fetched through the system resolver when loopback is allowed', async () => {
    const server = await serve(json(PROFILE));
    const port = new URL(server.base).port;
    expect((await resolver().resolve(`http://localhost:${port}/agent.json`)).version).toBe('2026-08-20');
    expect(server.hits).toEqual(['/agent.json']);
  });

  test('without allowLoopback the same server is refused and never contacted', async () => {
    const server = await serve(json(PROFILE));
    const port = new URL(server.base).port;
    const strict = createProfileResolver({ allowLoopback: false });
    expect(await failureCode(strict.resolve(`${server.base}/agent.json`))).toBe('invalid_profile_url');
    expect(await failureCode(strict.resolve(`https://127.0.0.1:${port}/agent.json`))).toBe('profile_unreachable');
    expect(await failureCode(strict.resolve(`https://[::1]:${port}/agent.json`))).toBe('profile_unreachable');
    const named = createProfileResolver({ allowLoopback: false, lookup: async () => ['127.0.0.1'] });
    expect(await failureCode(named.resolve(`https://localhost:${port}/agent.json`))).toBe('profile_unreachable');
    expect(server.hits).toEqual([]);
  });

  test.each([['10.0.0.5'], ['169.254.169.254'], ['::ffff:169.254.169.254'], ['fd00::1']])(
    'a hostname resolving to %s is refused without any connection',
    async (address) => {
      const transport = forbiddenTransport();
      const r = createProfileResolver({
        allowLoopback: false,
        lookup: async () => [address],
        fetchImpl: transport.fetchImpl,
      });
      const err = await r.resolve('https://agent.example/profile.json').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SecurityFailure);
      expect((err as SecurityFailure).code).toBe('profile_unreachable');
      expect((err as SecurityFailure).detail).toContain('special-use');
      expect(transport.calls()).toBe(0);
    },
  );

  test('one special-use answer among public ones is enough to refuse (DNS rebinding)', async () => {
    const transport = forbiddenTransport();
    const r = createProfileResolver({
      allowLoopback: false,
      lookup: async () => ['93.184.216.34', '10.0.0.5'],
      fetchImpl: transport.fetchImpl,
    });
    expect(await failureCode(r.resolve('https://agent.example/profile.json'))).toBe('profile_unreachable');
    expect(transport.calls()).toBe(0);
  });

  test('the transport is handed the vetted address and DNS is asked once', async () => {
    let lookups = 0;
    const seen: Array<{ host: string; address: string }> = [];
    const r = createProfileResolver({
      allowLoopback: false,
      lookup: async () => {
        lookups++;
        return ['93.184.216.34'];
      },
      fetchImpl: async ({ url, address }) => {
        seen.push({ host: url.host, address });
        return {
          status: 200,
          headers: new Headers({ 'cache-control': 'max-age=60' }),
          body: (async function* () {
            yield Buffer.from(JSON.stringify(PROFILE));
          })(),
        };
      },
    });
    await r.resolve('https://agent.example/profile.json');
    expect(seen).toEqual([{ host: 'agent.example', address: '93.184.216.34' }]);
    expect(lookups).toBe(1);
  });

  test('the default transport connects to the pinned address without a second DNS answer and keeps the Host', async () => {
    let host = '';
    const server = await serve((req, res) => {
      host = req.headers.host ?? '';
      json(PROFILE)(req, res);
    });
    const port = new URL(server.base).port;
    // profile.invalid never resolves: reaching the server proves the connection used the pinned address.
    const res = await pinnedFetch({
      url: new URL(`http://profile.invalid:${port}/p.json`),
      address: '127.0.0.1',
      family: 4,
      signal: new AbortController().signal,
    });
    expect(res.status).toBe(200);
    expect(host).toBe(`profile.invalid:${port}`);
    const chunks: Uint8Array[] = [];
    for await (const c of res.body!) chunks.push(c);
    expect(JSON.parse(Buffer.concat(chunks).toString())).toEqual(PROFILE);
  });

  test.each([
    ['http on a public host', 'http://agent.example/profile.json'],
    ['http on a private address', 'http://10.0.0.5/profile.json'],
    ['another scheme', 'ftp://agent.example/profile.json'],
    ['a relative reference', '/profiles/agent.json'],
    ['embedded credentials', 'https://user:secret@agent.example/profile.json'],
  ])('%s answers invalid_profile_url, even with loopback allowed', async (_, url) => {
    const transport = forbiddenTransport();
    expect(await failureCode(resolver({ fetchImpl: transport.fetchImpl }).resolve(url))).toBe('invalid_profile_url');
    expect(transport.calls()).toBe(0);
  });

  test('a 302 is not followed', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/moved.json') {
        res.writeHead(302, { location: '/real.json' });
        res.end();
      } else json(PROFILE)(req, res);
    });
    expect(await failureCode(resolver().resolve(`${server.base}/moved.json`))).toBe('profile_unreachable');
    expect(server.hits).toEqual(['/moved.json']);
  });

  test.each([[404], [500], [401]])('an answer of %s is profile_unreachable', async (status) => {
    const server = await serve((_req, res) => {
      res.writeHead(status);
      res.end();
    });
    const code = await failureCode(resolver().resolve(`${server.base}/p.json`));
    expect(code).toBe('profile_unreachable');
  });

  test('a body over the cap is refused while streaming, with or without a Content-Length', async () => {
    const big = JSON.stringify({ ...PROFILE, padding: 'x'.repeat(300 * 1024) });
    const server = await serve((req, res) => {
      if (req.url === '/declared.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) });
        res.end(big);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked, no length
      for (let i = 0; i < big.length; i += 16 * 1024) res.write(big.slice(i, i + 16 * 1024));
      res.end();
    });
    expect(await failureCode(resolver().resolve(`${server.base}/chunked.json`))).toBe('profile_unreachable');
    expect(await failureCode(resolver().resolve(`${server.base}/declared.json`))).toBe('profile_unreachable');
    // The same document fits a larger cap.
    expect(await failureCode(resolver({ maxBytes: 512 * 1024 }).resolve(`${server.base}/chunked.json`))).toBe(
      'resolved',
    );
  });

  test('a body that trickles past the deadline is refused (200 ms)', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"usp": ');
      // ... and never finishes.
    });
    const started = Date.now();
    expect(await failureCode(resolver({ timeoutMs: 200 }).resolve(`${server.base}/slow.json`))).toBe(
      'profile_unreachable',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a server that never answers is refused at the deadline', async () => {
    const server = await serve(() => undefined);
    const started = Date.now();
    expect(await failureCode(resolver({ timeoutMs: 200 }).resolve(`${server.base}/silent.json`))).toBe(
      'profile_unreachable',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

// ------------------------------------------------------------------------------------------------
// Parsing
// ------------------------------------------------------------------------------------------------

describe('a profile must be JSON with usp.version and usp.capabilities; anything else is ignored', () => {
  test.each([
    ['not JSON', '<html>hello</html>'],
    ['a JSON array', '[]'],
    ['missing usp', { capabilities: {} }],
    ['missing usp.version', { usp: { capabilities: {} } }],
    ['a usp.version that is not a date', { usp: { version: 'v1', capabilities: {} } }],
    ['missing usp.capabilities', { usp: { version: '2026-08-20' } }],
    ['usp.capabilities as an array', { usp: { version: '2026-08-20', capabilities: [] } }],
    ['keys that are not an array', { ...PROFILE, keys: { kid: 'x' } }],
  ])('%s answers profile_malformed', async (_, body) => {
    const server = await serve(json(body));
    expect(await failureCode(resolver().resolve(`${server.base}/p.json`))).toBe('profile_malformed');
  });

  test('unknown members at every level are ignored (forward compatibility)', async () => {
    const doc = {
      usp: { ...PROFILE.usp, services: { 'dev.usp-protocol.services': [{ transport: 'rest' }] }, future_field: 1 },
      keys: [{ kid: 'k1', kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', future_jwk_member: true }, 'not-a-key'],
      webhook_url: 'https://agent.example/webhooks',
      brand_new_member: { nested: [1, 2, 3] },
    };
    const server = await serve(json(doc));
    const profile = await resolver().resolve(`${server.base}/p.json`);
    expect(profile.webhook_url).toBe('https://agent.example/webhooks');
    expect(profile.keys).toHaveLength(1);
    expect(profile.raw.brand_new_member).toEqual({ nested: [1, 2, 3] });
  });
});

// ------------------------------------------------------------------------------------------------
// Caching
// ------------------------------------------------------------------------------------------------

describe('profiles are cached for max(60 s, max-age); failures briefly; one fetch is shared', () => {
  test('a max-age under the floor is raised to 60 s', async () => {
    const server = await serve(json(PROFILE, { 'cache-control': 'public, max-age=10' }));
    const c = clock();
    const r = resolver({ now: c.now });
    const url = `${server.base}/p.json`;
    await r.resolve(url);
    c.advance(59);
    await r.resolve(url);
    expect(server.hits).toHaveLength(1);
    c.advance(2);
    await r.resolve(url);
    expect(server.hits).toHaveLength(2);
  });

  test('a longer max-age is honoured', async () => {
    const server = await serve(json(PROFILE, { 'cache-control': 'public, max-age=300' }));
    const c = clock();
    const r = resolver({ now: c.now });
    const url = `${server.base}/p.json`;
    await r.resolve(url);
    c.advance(299);
    await r.resolve(url);
    expect(server.hits).toHaveLength(1);
    c.advance(2);
    await r.resolve(url);
    expect(server.hits).toHaveLength(2);
  });

  test('a missing or prohibited Cache-Control still gets the 60 s floor', async () => {
    const server = await serve(json(PROFILE, { 'cache-control': 'no-store' }));
    const c = clock();
    const r = resolver({ now: c.now });
    await r.resolve(`${server.base}/p.json`);
    c.advance(30);
    await r.resolve(`${server.base}/p.json`);
    expect(server.hits).toHaveLength(1);
  });

  test('five concurrent resolves of one URL share one request', async () => {
    const server = await serve((req, res) => setTimeout(() => json(PROFILE)(req, res), 50));
    const r = resolver();
    const url = `${server.base}/p.json`;
    const profiles = await Promise.all(Array.from({ length: 5 }, () => r.resolve(url)));
    expect(server.hits).toHaveLength(1);
    expect(new Set(profiles).size).toBe(1);
  });

  test('a failure is cached for 10 s (negative cache), then retried', async () => {
    let healthy = false;
    const server = await serve((req, res) => {
      if (healthy) return json(PROFILE)(req, res);
      res.writeHead(503);
      res.end();
    });
    const c = clock();
    const r = resolver({ now: c.now });
    const url = `${server.base}/p.json`;
    expect(await failureCode(r.resolve(url))).toBe('profile_unreachable');
    healthy = true;
    c.advance(5);
    expect(await failureCode(r.resolve(url))).toBe('profile_unreachable');
    expect(server.hits).toHaveLength(1);
    c.advance(6);
    expect(await failureCode(r.resolve(url))).toBe('resolved');
    expect(server.hits).toHaveLength(2);
  });

  test('invalidate drops the cached profile; an unknown-key refresh happens at most once per floor per origin', async () => {
    const server = await serve(json(PROFILE));
    const c = clock();
    const r = resolver({ now: c.now });
    const url = `${server.base}/p.json`;
    await r.resolve(url);
    r.invalidate(url);
    await r.resolve(url);
    expect(server.hits).toHaveLength(2);
    expect(r.refreshForUnknownKey(url)).toBe(true);
    await r.resolve(url);
    expect(r.refreshForUnknownKey(url)).toBe(false);
    await r.resolve(url);
    expect(server.hits).toHaveLength(3);
    c.advance(61);
    expect(r.refreshForUnknownKey(url)).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------------
// Allowlist and keys
// ------------------------------------------------------------------------------------------------

describe('an allowlist, when configured, admits only its prefixes', () => {
  test('a URL outside the allowlist answers profile_not_trusted without a request', async () => {
    const server = await serve(json(PROFILE));
    const r = resolver({ allowlist: [`${server.base}/trusted/`] });
    expect(await failureCode(r.resolve(`${server.base}/other.json`))).toBe('profile_not_trusted');
    expect(server.hits).toEqual([]);
    expect(await failureCode(r.resolve(`${server.base}/trusted/agent.json`))).toBe('resolved');
  });

  test('a prefix matches on a boundary only', async () => {
    const transport = forbiddenTransport();
    const r = createProfileResolver({
      allowLoopback: false,
      allowlist: ['https://agent.example'],
      fetchImpl: transport.fetchImpl,
    });
    expect(await failureCode(r.resolve('https://agent.example.evil.test/p.json'))).toBe('profile_not_trusted');
    expect(transport.calls()).toBe(0);
  });
});

describe('findKey resolves a keyid against keys first, then signing_keys, skipping unusable keys', () => {
  const ec = (kid: string, x: string, extra: Partial<JsonWebKey> = {}): JsonWebKey => ({
    kid,
    kty: 'EC',
    crv: 'P-256',
    x,
    y: 'AA',
    ...extra,
  });

  test('keys wins over signing_keys for the same kid; signing_keys is the fallback', () => {
    const profile = {
      keys: [ec('k1', 'from-keys')],
      signing_keys: [ec('k1', 'from-signing-keys'), ec('k2', 'only-legacy')],
    };
    expect(findKey(profile, 'k1')?.x).toBe('from-keys');
    expect(findKey(profile, 'k2')?.x).toBe('only-legacy');
    expect(findKey(profile, 'k3')).toBeNull();
  });

  test('encryption keys, keys with private members and symmetric keys are skipped', () => {
    const profile = {
      keys: [
        ec('k1', 'enc', { use: 'enc' }),
        ec('k1', 'private', { d: 'secret' }),
        { kid: 'k1', kty: 'oct', k: 'AAAA' },
      ],
      signing_keys: [ec('k1', 'usable')],
    };
    expect(findKey(profile, 'k1')?.x).toBe('usable');
  });

  test('a key of an algorithm the verifier lacks is still returned, so the verifier answers algorithm_unsupported', () => {
    const rsa: JsonWebKey = { kid: 'r1', kty: 'RSA', n: 'AQAB', e: 'AQAB' };
    expect(findKey({ keys: [rsa], signing_keys: [] }, 'r1')).toEqual(rsa);
  });

  test('a signed request verifies end to end with a key from a fetched profile', async () => {
    const key = generateSigningKey('platform-2026');
    const server = await serve(json({ ...PROFILE, keys: [key.publicJwk], signing_keys: [key.publicJwk] }));
    const r = resolver();
    const profileUrl = `${server.base}/agent.json`;
    const body = Buffer.from('{"service_id":"svc_1"}');
    const req = {
      method: 'POST',
      url: 'https://business.example.com/bookings',
      headers: {
        'content-type': 'application/json',
        'usp-agent': `profile="${profileUrl}"`,
        'content-digest': contentDigest(body),
      },
      body,
    };
    const sig = signRequest(req, key, {
      components: ['@method', '@authority', '@path', 'usp-agent', 'content-digest', 'content-type'],
    });
    const result = await verifyRequestSignature(
      { ...req, headers: { ...req.headers, ...sig } },
      async (kid) => findKey(await r.resolve(profileUrl), kid),
      {
        now: Date.now(),
        requiredComponents: uspRequiredComponents,
      },
    );
    expect(result.jwk).toEqual(key.publicJwk);
  });
});
