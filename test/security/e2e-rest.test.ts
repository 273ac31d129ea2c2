/**
 * Platform authentication end to end on the REST door over real HTTP (spec 10.1.6, 9.1.4, 8.2.3;
 * RFC 9449 DPoP, RFC 9421 signatures; CONFORMANCE §8): 401 challenges, DPoP-bound
 * booking-scoped credentials, signed requests keyed off a published platform profile, profile
 * fetch hardening (nothing private is ever contacted), per-principal rate limits, and the public
 * tier staying anonymous on a server that requires authentication.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createPopKey,
  createSigningIdentity,
  dpopHeaders,
  signedHeaders,
  type PopKey,
} from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { SecurityOptions } from '../../src/server/security-wiring.js';
import { createProfileResolver, type ProfileFetch } from '../../src/security/platform-profiles.js';
import { nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ADMIN_KEY, BUYER, demoBusiness } from '../support/server.js';

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

async function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const agent = (profile: string) => ({ 'USP-Agent': `profile="${profile}"` });
const JSON_HEADERS = { 'Content-Type': 'application/json' };

async function startServer(security: SecurityOptions): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security,
  });
  return { server, url: await server.listen(0, '127.0.0.1') };
}

let profiles: ProfileServer;
let main: { server: UspServer; url: string };
let A: string;
let B: string;
const day = nyDate(Date.now(), 3);

beforeAll(async () => {
  profiles = await startProfileServer();
  A = profiles.addProfile('/platform-a.json');
  B = profiles.addProfile('/platform-b.json');
  main = await startServer({ allowLoopbackProfiles: true, rateLimits: { holds: 2 } });
});
afterAll(async () => {
  await main?.server.close();
  await profiles?.close();
});

async function freeSlot(base: string, service = 'svc_haircut'): Promise<string> {
  const r = await send(
    `${base}/availability/query`,
    'POST',
    JSON_HEADERS,
    JSON.stringify({ service_id: service, start_date: day, end_date: day }),
  );
  expect(r.status).toBe(200);
  const slot = r.body.slots[0];
  if (!slot) throw new Error(`no free ${service} slot on ${day}`);
  return slot.id;
}

/** POST /bookings with a DPoP proof of `key`, under `profile`. */
async function dpopBook(base: string, key: PopKey, profile: string): Promise<Reply> {
  const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: await freeSlot(base), buyer: BUYER });
  return send(
    `${base}/bookings`,
    'POST',
    {
      ...JSON_HEADERS,
      ...agent(profile),
      'Idempotency-Key': randomUUID(),
      ...dpopHeaders(key, 'POST', `${base}/bookings`),
    },
    body,
  );
}

/** POST /availability/holds with a DPoP proof of `key`, under `profile`. */
async function dpopHold(base: string, key: PopKey, profile: string, slotId?: string): Promise<Reply> {
  const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: slotId ?? (await freeSlot(base)) });
  return send(
    `${base}/availability/holds`,
    'POST',
    { ...JSON_HEADERS, ...agent(profile), ...dpopHeaders(key, 'POST', `${base}/availability/holds`) },
    body,
  );
}

describe('public tier and challenges on a server that requires authentication', () => {
  test('services/list, availability/query and /.well-known/usp work anonymously', async () => {
    const list = await send(`${main.url}/services/list`, 'POST', JSON_HEADERS, '{}');
    expect(list.status).toBe(200);
    expect(list.body.services.length).toBeGreaterThan(0);
    const q = await send(
      `${main.url}/availability/query`,
      'POST',
      JSON_HEADERS,
      JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
    );
    expect(q.status).toBe(200);
    expect(q.body.slots.length).toBeGreaterThan(0);
    const profile = await send(`${main.url}/.well-known/usp`, 'GET', {});
    expect(profile.status).toBe(200);
    expect(profile.body.authorization.privileged_operations_require_authentication).toBe(true);
    expect(profile.body.authorization.accepted_mechanisms).toEqual(
      expect.arrayContaining(['platform_key_pop', 'booking_scoped_credential', 'http_message_signature', 'api_key']),
    );
    expect(profile.body.authorization.sandbox).toBeUndefined();
    expect(profile.body.authorization.pop_algorithms).toContain('EdDSA');
  });

  test('an unauthenticated POST /bookings -> 401, WWW-Authenticate naming DPoP, Signature and Bearer, type .../authentication-required', async () => {
    const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: await freeSlot(main.url), buyer: BUYER });
    const r = await send(`${main.url}/bookings`, 'POST', { ...JSON_HEADERS, ...agent(A) }, body);
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.body.type).toMatch(/\/authentication-required$/);
    const challenge = r.headers.get('www-authenticate') ?? '';
    for (const scheme of ['DPoP', 'Signature', 'Bearer']) expect(challenge).toMatch(new RegExp(`(^|, )${scheme} `));
    // A booking id is not a credential either.
    const read = await send(`${main.url}/bookings/bkg_anything`, 'GET', agent(A));
    expect(read.status).toBe(401);
  });
});

describe('DPoP (RFC 9449) with a booking-scoped credential', () => {
  const key = createPopKey();
  const thief = createPopKey();
  let bookingId = '';
  let bsc = '';

  test('a DPoP-authenticated platform books (201) and receives a credential bound to its key', async () => {
    const r = await dpopBook(main.url, key, A);
    expect(r.status).toBe(201);
    expect(r.body.booking.status).toBe('confirmed');
    expect(r.body.booking_scoped_credential).toMatchObject({
      value: expect.stringMatching(/^bsc_/),
      cnf: { jkt: key.jkt },
    });
    bookingId = r.body.booking.id;
    bsc = r.body.booking_scoped_credential.value;
  });

  test('it reads with Authorization: DPoP <bsc> plus a proof carrying ath', async () => {
    const url = `${main.url}/bookings/${bookingId}`;
    const r = await send(url, 'GET', { ...agent(A), ...dpopHeaders(key, 'GET', url, { credential: bsc }) });
    expect(r.status).toBe(200);
    expect(r.body.booking.id).toBe(bookingId);
    // A proof without ath does not present the credential.
    const noAth = await send(url, 'GET', {
      ...agent(A),
      Authorization: `DPoP ${bsc}`,
      DPoP: dpopHeaders(key, 'GET', url).DPoP,
    });
    expect(noAth.status).toBe(401);
    expect(noAth.body.type).toMatch(/\/pop-proof-invalid$/);
    // A proof for another URL (htu) or method (htm) is refused.
    const wrongHtu = await send(url, 'GET', {
      ...agent(A),
      ...dpopHeaders(key, 'GET', `${main.url}/bookings/other`, { credential: bsc }),
    });
    expect(wrongHtu.body.type).toMatch(/\/pop-proof-invalid$/);
    const wrongHtm = await send(url, 'GET', { ...agent(A), ...dpopHeaders(key, 'POST', url, { credential: bsc }) });
    expect(wrongHtm.body.type).toMatch(/\/pop-proof-invalid$/);
  });

  test('the stolen credential with another key -> 401 .../pop-key-mismatch; without any proof -> .../pop-proof-missing', async () => {
    const url = `${main.url}/bookings/${bookingId}`;
    const r = await send(url, 'GET', { ...agent(B), ...dpopHeaders(thief, 'GET', url, { credential: bsc }) });
    expect(r.status).toBe(401);
    expect(r.body.type).toMatch(/\/pop-key-mismatch$/);
    expect(r.headers.get('www-authenticate')).toMatch(/DPoP/);
    for (const scheme of ['DPoP', 'Bearer']) {
      const bare = await send(url, 'GET', { ...agent(A), Authorization: `${scheme} ${bsc}` });
      expect(bare.status, scheme).toBe(401);
      expect(bare.body.type, scheme).toMatch(/\/pop-proof-missing$/);
    }
  });

  test('a replayed DPoP proof -> 401 .../pop-proof-replayed', async () => {
    const url = `${main.url}/bookings/${bookingId}`;
    const headers = { ...agent(A), ...dpopHeaders(key, 'GET', url, { credential: bsc }) };
    expect((await send(url, 'GET', headers)).status).toBe(200);
    const again = await send(url, 'GET', headers);
    expect(again.status).toBe(401);
    expect(again.body.type).toMatch(/\/pop-proof-replayed$/);
  });

  test('it cancels with Authorization: DPoP <bsc> plus a proof carrying ath', async () => {
    const url = `${main.url}/bookings/${bookingId}/cancel`;
    const r = await send(
      url,
      'POST',
      {
        ...JSON_HEADERS,
        ...agent(A),
        'Idempotency-Key': randomUUID(),
        ...dpopHeaders(key, 'POST', url, { credential: bsc }),
      },
      JSON.stringify({ reason: 'plans changed' }),
    );
    expect(r.status).toBe(200);
    expect(r.body.booking).toMatchObject({ id: bookingId, status: 'canceled' });
  });
});

describe('RFC 9421 signatures keyed off the platform profile', () => {
  const id = createSigningIdentity(`sig-${randomUUID().slice(0, 8)}`);
  const other = createSigningIdentity(`sig-other-${randomUUID().slice(0, 8)}`);
  let SIG: string;
  beforeAll(() => {
    SIG = profiles.addProfile('/signing-platform.json', { keys: [id.publicJwk, other.publicJwk] });
  });

  const signedBooking = async (identity = id) => {
    const url = `${main.url}/bookings`;
    const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: await freeSlot(main.url), buyer: BUYER });
    const headers = signedHeaders(
      identity,
      'POST',
      url,
      { ...JSON_HEADERS, ...agent(SIG), 'Idempotency-Key': randomUUID() },
      body,
    );
    return { url, body, headers };
  };

  test('a signed request covering usp-agent, idempotency-key, content-digest and content-type books (201); its principal reads its own booking', async () => {
    const { url, body, headers } = await signedBooking();
    const input = headers['Signature-Input'] ?? headers['signature-input'];
    for (const c of [
      '"@method"',
      '"@authority"',
      '"@path"',
      '"usp-agent"',
      '"idempotency-key"',
      '"content-digest"',
      '"content-type"',
    ])
      expect(input).toContain(c);
    const r = await send(url, 'POST', headers, body);
    expect(r.status).toBe(201);
    const bookingId = r.body.booking.id;
    expect(profiles.requests('/signing-platform.json')).toBeGreaterThanOrEqual(1);

    const readUrl = `${main.url}/bookings/${bookingId}`;
    const read = await send(readUrl, 'GET', signedHeaders(id, 'GET', readUrl, agent(SIG)));
    expect(read.status).toBe(200);
    expect(read.body.booking.id).toBe(bookingId);

    // Another signer on the same profile is another principal: no access to this booking (spec-next 9.4.1: a 404).
    const theirs = await send(readUrl, 'GET', signedHeaders(other, 'GET', readUrl, agent(SIG)));
    expect(theirs.status).toBe(404);
    expect(theirs.body.booking).toBeUndefined();
    expect(theirs.body.code).toBe('booking_not_found');
  });

  test('a body changed by one byte after signing -> 400 .../digest-mismatch', async () => {
    const { url, body, headers } = await signedBooking();
    const tampered = body.replace('"Ada"', '"Adb"');
    expect(tampered).not.toBe(body);
    expect(tampered.length).toBe(body.length);
    const r = await send(url, 'POST', headers, tampered);
    expect(r.status).toBe(400);
    expect(r.body.type).toMatch(/\/digest-mismatch$/);
  });

  test('an unknown keyid -> 401 .../key-not-found', async () => {
    const stranger = createSigningIdentity('not-in-the-profile');
    const { url, body, headers } = await signedBooking(stranger);
    const r = await send(url, 'POST', headers, body);
    expect(r.status).toBe(401);
    expect(r.body.type).toMatch(/\/key-not-found$/);
  });

  test('a signature over other bytes (wrong key for the kid) -> 401 .../signature-invalid', async () => {
    const impostor = { ...createSigningIdentity(id.kid) };
    const { url, body, headers } = await signedBooking(impostor);
    const r = await send(url, 'POST', headers, body);
    expect(r.status).toBe(401);
    expect(r.body.type).toMatch(/\/signature-invalid$/);
  });
});

describe('platform profile URLs: https only, nothing private is ever fetched', () => {
  let strict: { server: UspServer; url: string };
  beforeAll(async () => {
    strict = await startServer({});
  });
  afterAll(async () => {
    await strict?.server.close();
  });

  test('without allowLoopbackProfiles, http://127.0.0.1 profiles are refused as invalid_profile_url (400) and never fetched', async () => {
    const before = { requests: profiles.totalRequests(), connections: profiles.connections() };
    const key = createPopKey();
    const r = await dpopHold(strict.url, key, profiles.urlFor('/platform-a.json'));
    expect(r.status).toBe(400);
    expect(r.body.type).toMatch(/\/invalid-profile-url$/);
    // https to the same loopback port: refused on the address, before any connection.
    const tls = await dpopHold(strict.url, key, `https://127.0.0.1:${profiles.port}/platform-a.json`);
    expect(tls.status).toBe(424);
    expect(tls.body.type).toMatch(/\/profile-unreachable$/);
    expect(profiles.totalRequests()).toBe(before.requests);
    expect(profiles.connections()).toBe(before.connections);
  });

  test.each([
    'https://10.0.0.5/p.json',
    'https://169.254.169.254/latest',
    'https://[::1]/p.json',
    'https://192.168.1.10/p.json',
  ])('an authenticated call naming %s -> 424 profile_unreachable', async (profile) => {
    const before = profiles.connections();
    const r = await dpopHold(strict.url, createPopKey(), profile);
    expect(r.status).toBe(424);
    expect(r.body.type).toMatch(/\/profile-unreachable$/);
    expect(profiles.connections()).toBe(before);
  });

  test('the real resolver refuses special-use addresses before any connection: IP literals skip DNS, every DNS answer is vetted', async () => {
    let fetched = 0;
    const lookedUp: string[] = [];
    const fetchImpl: ProfileFetch = async () => {
      fetched += 1;
      throw new Error('must not connect');
    };
    const resolver = createProfileResolver({
      allowLoopback: false,
      fetchImpl,
      lookup: async (host) => {
        lookedUp.push(host);
        return host === 'rebind.example' ? ['203.0.113.9', '10.0.0.5'] : ['10.0.0.5'];
      },
    });
    const s = await startServer({ profileResolver: resolver });
    try {
      for (const profile of [
        'https://10.0.0.5/p.json',
        'https://169.254.169.254/latest',
        'https://internal.example/p.json',
        'https://rebind.example/p.json',
      ]) {
        const r = await dpopHold(s.url, createPopKey(), profile);
        expect(r.status, profile).toBe(424);
        expect(r.body.type, profile).toMatch(/\/profile-unreachable$/);
      }
      expect(fetched).toBe(0);
      // IP literals never reach DNS; names do, and every answer is vetted.
      expect(lookedUp.sort()).toEqual(['internal.example', 'rebind.example']);
    } finally {
      await s.server.close();
    }
  });

  test('a privileged call with a non-https profile -> 400 (also where loopback profiles are allowed)', async () => {
    for (const profile of ['http://platform.example/p.json', 'ftp://platform.example/p.json', 'not a url']) {
      const r = await dpopHold(main.url, createPopKey(), profile);
      expect(r.status, profile).toBe(400);
      expect(r.body.type, profile).toMatch(/\/invalid-profile-url$/);
    }
  });

  test('a refused first contact binds nothing: a key whose profile could not be fetched can then use its real profile', async () => {
    const key = createPopKey();
    const missing = await dpopHold(main.url, key, profiles.urlFor('/does-not-exist.json'));
    expect(missing.status).toBe(424);
    expect(profiles.requests('/does-not-exist.json')).toBe(1);
    const r = await dpopBook(main.url, key, A);
    expect(r.status).toBe(201);
  });
});

describe('rate limits (security.rateLimits)', () => {
  test('the third hold in a minute from one PoP key -> 429 with Retry-After; a fresh key from the same address and profile is held back too', async () => {
    const key = createPopKey();
    const first = await dpopHold(main.url, key, A);
    expect(first.status).toBe(201);
    const second = await dpopHold(main.url, key, A);
    expect(second.status).toBe(201);
    const third = await dpopHold(main.url, key, A);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(third.body.type).toMatch(/\/rate-limited$/);
    // Limits count per address and per profile as well as per key: a fresh key escapes nothing.
    const other = await dpopHold(main.url, createPopKey(), A);
    expect(other.status).toBe(429);
  });
});
