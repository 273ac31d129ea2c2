/**
 * Platform authentication end to end on the MCP door (spec 10.1.6, 9.2.2; CONFORMANCE §8, D8,
 * D9): the official v2 client talks to a server that requires authentication, over real stdio
 * (`usp-server mcp --demo --require-auth --allow-loopback-profiles`) and over Streamable HTTP
 * (createUspServer with sandbox off). Platforms prove possession of their own Ed25519 keys with
 * the platform helper (withMcpProof), publish keyless profiles on a loopback profile server, and
 * every refusal is checked for its JSON-RPC code and `data.code`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPopKey, mcpProof, withMcpProof } from '../../src/client/platform-auth.js';
import type { UspServer } from '../../src/server/compose.js';
import { ensureBuilt } from '../support/build.js';
import { nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ADMIN_KEY, BUYER } from '../support/server.js';
import {
  connectHttp,
  connectStdio,
  errorCodes,
  signed,
  startHttp,
  usp,
  withAuthorization,
  type Conn,
} from './mcp-auth-fixtures.js';

let profiles: ProfileServer;
let A: string; // platform A's profile
let B: string; // platform B's profile
let SHARED: string; // one profile shared by many agent instances
let ELSEWHERE: string;

beforeAll(async () => {
  profiles = await startProfileServer();
  A = profiles.addProfile('/platform-a.json');
  B = profiles.addProfile('/platform-b.json');
  SHARED = profiles.addProfile('/shared-agent.json');
  ELSEWHERE = profiles.addProfile('/elsewhere.json');
});
afterAll(async () => {
  await profiles?.close();
});

describe.each([{ kind: 'stdio' as const }, { kind: 'http' as const }])(
  'platform_key_pop end to end over MCP $kind (v2 client)',
  ({ kind }) => {
    let conn: Conn;
    let http: { server: UspServer; url: string } | undefined;
    let day = '';
    const keyA = createPopKey();
    const keyB = createPopKey();
    const st: { bookingId?: string; credential?: string } = {};

    /** The first free slot now (slots of one service can overlap, so ask again before every booking). */
    const freeSlot = async (service = 'svc_haircut') => {
      const q = await conn.call('usp_availability_query', { service_id: service, start_date: day, end_date: day });
      const s = q.structuredContent.slots[0];
      if (!s) throw new Error(`no free ${service} slot on ${day}`);
      return s.id as string;
    };

    beforeAll(async () => {
      if (kind === 'stdio') {
        ensureBuilt();
        conn = await connectStdio();
      } else {
        http = await startHttp({ allowLoopbackProfiles: true });
        conn = await connectHttp(http.url);
      }
      day = nyDate(Date.now(), 3);
    }, 120_000);
    afterAll(async () => {
      await conn?.close();
      await http?.server.close();
    });

    const createArgs = (profile: string, slotId: string, service = 'svc_haircut') => ({
      service_id: service,
      slot_id: slotId,
      buyer: BUYER,
      ...usp(profile, { idempotency_key: randomUUID() }),
    });

    test('public tools answer anonymously; an unauthenticated privileged call is refused with -32006', async () => {
      const list = await conn.call('usp_services_list', {});
      expect(list.structuredContent.services.length).toBeGreaterThan(0);
      const e = await conn.callError('usp_bookings_create', createArgs(A, 'slot_unused'));
      expect(e.code).toBe(-32006);
      expect(e.message).toMatch(/^authentication_required: \S/);
      expect(e.data.code).toBe('authentication_missing');
      expect(e.data.accepted_mechanisms).toEqual(
        expect.arrayContaining(['platform_key_pop', 'booking_scoped_credential']),
      );
    });

    test('a PoP-authenticated platform books and receives a booking_scoped_credential bound to its key (cnf.jkt)', async () => {
      const r = await conn.call(
        'usp_bookings_create',
        signed(conn, keyA, 'usp_bookings_create', createArgs(A, await freeSlot())),
      );
      expect(errorCodes(r)).toEqual([]);
      expect(r.structuredContent.booking).toMatchObject({ id: expect.any(String), status: 'confirmed' });
      const bsc = r.structuredContent.booking_scoped_credential;
      expect(bsc).toMatchObject({
        value: expect.stringMatching(/^bsc_.{22,}$/),
        expires_at: expect.any(String),
        cnf: { jkt: keyA.jkt },
      });
      expect(Object.keys(bsc.cnf)).toEqual(['jkt']);
      // A sibling of the resource, never inside it.
      expect(r.structuredContent.booking.booking_scoped_credential).toBeUndefined();
      expect(bsc.value).not.toContain(r.structuredContent.booking.id);
      st.bookingId = r.structuredContent.booking.id;
      st.credential = bsc.value;
    });

    test('the booking reads with credential + proof', async () => {
      const r = await conn.call(
        'usp_bookings_get',
        signed(conn, keyA, 'usp_bookings_get', { booking_id: st.bookingId, ...usp(A) }, { credential: st.credential }),
      );
      expect(errorCodes(r)).toEqual([]);
      expect(r.structuredContent.booking).toMatchObject({ id: st.bookingId, status: 'confirmed' });
    });

    test('another platform presenting the stolen credential value with its own valid proof -> -32001 pop_key_mismatch', async () => {
      const args = signed(
        conn,
        keyB,
        'usp_bookings_get',
        { booking_id: st.bookingId, ...usp(B) },
        { credential: st.credential },
      );
      const e = await conn.callError('usp_bookings_get', args);
      expect(e.code).toBe(-32001);
      expect(e.data.code).toBe('pop_key_mismatch');
      // Same for a cancel: the thief cannot act either.
      const c = await conn.callError(
        'usp_bookings_cancel',
        signed(
          conn,
          keyB,
          'usp_bookings_cancel',
          { booking_id: st.bookingId, ...usp(B, { idempotency_key: randomUUID() }) },
          { credential: st.credential },
        ),
      );
      expect(c.data.code).toBe('pop_key_mismatch');
    });

    test('the credential without a proof (mechanism booking_scoped_credential) -> -32001 pop_proof_missing; platform_key_pop without proof too', async () => {
      const base = { booking_id: st.bookingId, ...usp(A) };
      const e = await conn.callError(
        'usp_bookings_get',
        withAuthorization(base, { mechanism: 'booking_scoped_credential', credential: st.credential }),
      );
      expect(e.code).toBe(-32001);
      expect(e.data.code).toBe('pop_proof_missing');
      const e2 = await conn.callError(
        'usp_bookings_get',
        withAuthorization(base, { mechanism: 'platform_key_pop', credential: st.credential }),
      );
      expect(e2.code).toBe(-32001);
      expect(e2.data.code).toBe('pop_proof_missing');
    });

    test('a replayed proof is refused, reads included -> -32001 pop_proof_replayed', async () => {
      const args = signed(
        conn,
        keyA,
        'usp_bookings_get',
        { booking_id: st.bookingId, ...usp(A) },
        { credential: st.credential },
      );
      const first = await conn.call('usp_bookings_get', args);
      expect(errorCodes(first)).toEqual([]);
      const e = await conn.callError('usp_bookings_get', args);
      expect(e.code).toBe(-32001);
      expect(e.data.code).toBe('pop_proof_replayed');
    });

    test('a proof made for another business (wrong aud) -> -32001 pop_proof_invalid', async () => {
      const args = withMcpProof(
        keyA,
        'usp_bookings_get',
        { booking_id: st.bookingId, ...usp(A) },
        'https://other-business.example.net/.well-known/usp',
        {
          credential: st.credential,
        },
      );
      const e = await conn.callError('usp_bookings_get', args);
      expect(e.code).toBe(-32001);
      expect(e.data.code).toBe('pop_proof_invalid');
    });

    test('arguments altered after signing -> -32001 pop_proof_invalid (usp_p covers every argument, _meta.usp included)', async () => {
      const good = signed(
        conn,
        keyA,
        'usp_bookings_cancel',
        { booking_id: st.bookingId, reason: 'plans changed', ...usp(A, { idempotency_key: randomUUID() }) },
        { credential: st.credential },
      );
      const meta = good._meta as { usp: Record<string, unknown> };
      const altered: Array<[string, Record<string, unknown>]> = [
        ['reason', { ...good, reason: 'plans changed!' }],
        ['idempotency_key', { ...good, _meta: { usp: { ...meta.usp, idempotency_key: randomUUID() } } }],
        ['an added argument', { ...good, extra_field: 1 }],
      ];
      for (const [what, args] of altered) {
        const e = await conn.callError('usp_bookings_cancel', args);
        expect(e.code, what).toBe(-32001);
        expect(e.data.code, what).toBe('pop_proof_invalid');
      }
      // A proof for one tool is not a proof for another.
      const proof = mcpProof(
        keyA,
        'usp_bookings_get',
        { booking_id: st.bookingId, ...usp(A, { idempotency_key: 'k' }) },
        conn.aud,
        { credential: st.credential },
      );
      const other = await conn.callError(
        'usp_bookings_cancel',
        withAuthorization(
          { booking_id: st.bookingId, ...usp(A, { idempotency_key: 'k' }) },
          { mechanism: 'platform_key_pop', credential: st.credential, proof },
        ),
      );
      expect(other.data.code).toBe('pop_proof_invalid');
    });

    test('platform identity alone cannot read another platform booking (booking_not_found); the creator key can', async () => {
      const theirs = await conn.callError(
        'usp_bookings_get',
        signed(conn, keyB, 'usp_bookings_get', { booking_id: st.bookingId, ...usp(B) }),
      );
      expect([theirs.code, theirs.data.code]).toEqual([-32602, 'booking_not_found']);
      const mine = await conn.call(
        'usp_bookings_get',
        signed(conn, keyA, 'usp_bookings_get', { booking_id: st.bookingId, ...usp(A) }),
      );
      expect(errorCodes(mine)).toEqual([]);
      expect(mine.structuredContent.booking.id).toBe(st.bookingId);
    });

    test('the same key presenting a different profile URI later -> -32006 profile_binding_mismatch (D9)', async () => {
      const e = await conn.callError(
        'usp_bookings_get',
        signed(
          conn,
          keyA,
          'usp_bookings_get',
          { booking_id: st.bookingId, ...usp(ELSEWHERE) },
          { credential: st.credential },
        ),
      );
      expect(e.code).toBe(-32006);
      expect(e.data.code).toBe('profile_binding_mismatch');
      const e2 = await conn.callError(
        'usp_bookings_create',
        signed(conn, keyA, 'usp_bookings_create', createArgs(ELSEWHERE, await freeSlot())),
      );
      expect(e2.data.code).toBe('profile_binding_mismatch');
    });

    test('a second key on the same shared profile URI is accepted (the principal is the key, not the URI)', async () => {
      const k1 = createPopKey();
      const k2 = createPopKey();
      const r1 = await conn.call(
        'usp_bookings_create',
        signed(conn, k1, 'usp_bookings_create', createArgs(SHARED, await freeSlot())),
      );
      expect(errorCodes(r1)).toEqual([]);
      expect(r1.structuredContent.booking_scoped_credential.cnf.jkt).toBe(k1.jkt);
      const r2 = await conn.call(
        'usp_bookings_create',
        signed(conn, k2, 'usp_bookings_create', createArgs(SHARED, await freeSlot())),
      );
      expect(errorCodes(r2)).toEqual([]);
      expect(r2.structuredContent.booking_scoped_credential.cnf.jkt).toBe(k2.jkt);
      // Sharing a profile shares no access: k2 cannot read k1's booking.
      const cross = await conn.callError(
        'usp_bookings_get',
        signed(conn, k2, 'usp_bookings_get', { booking_id: r1.structuredContent.booking.id, ...usp(SHARED) }),
      );
      expect([cross.code, cross.data.code]).toEqual([-32602, 'booking_not_found']);
    });

    test('cancel with credential + proof; the credential is dead once the booking is terminal', async () => {
      const r = await conn.call(
        'usp_bookings_cancel',
        signed(
          conn,
          keyA,
          'usp_bookings_cancel',
          { booking_id: st.bookingId, reason: 'plans changed', ...usp(A, { idempotency_key: randomUUID() }) },
          { credential: st.credential },
        ),
      );
      expect(errorCodes(r)).toEqual([]);
      expect(r.structuredContent.booking).toMatchObject({ id: st.bookingId, status: 'canceled' });
      const e = await conn.callError(
        'usp_bookings_get',
        signed(conn, keyA, 'usp_bookings_get', { booking_id: st.bookingId, ...usp(A) }, { credential: st.credential }),
      );
      expect(e.code).toBe(-32006);
      expect(e.data.code).toBe('credential_invalid');
    });

    test('usp_bookings_confirm is business-only (D8): a platform is refused (-32006), the business API key confirms', async () => {
      const made = await conn.call(
        'usp_bookings_create',
        signed(
          conn,
          keyA,
          'usp_bookings_create',
          createArgs(A, await freeSlot('svc_color_consult'), 'svc_color_consult'),
        ),
      );
      expect(errorCodes(made)).toEqual([]);
      expect(made.structuredContent.booking.status).toBe('pending');
      const id = made.structuredContent.booking.id;
      const bsc = made.structuredContent.booking_scoped_credential.value;

      const byPlatform = await conn.callError(
        'usp_bookings_confirm',
        signed(
          conn,
          keyA,
          'usp_bookings_confirm',
          { booking_id: id, ...usp(A, { idempotency_key: randomUUID() }) },
          { credential: bsc },
        ),
      );
      expect(byPlatform.code).toBe(-32006);
      expect(byPlatform.data.code).toBe('business_credential_required');
      const bare = await conn.callError('usp_bookings_confirm', { booking_id: id, ...usp(A) });
      expect(bare.code).toBe(-32006);
      const wrongKey = await conn.callError(
        'usp_bookings_confirm',
        withAuthorization({ booking_id: id, ...usp(A) }, { mechanism: 'api_key', credential: 'not-the-admin-key' }),
      );
      expect(wrongKey.code).toBe(-32006);

      const byBusiness = await conn.call('usp_bookings_confirm', {
        booking_id: id,
        _meta: { usp: { authorization: { mechanism: 'api_key', credential: ADMIN_KEY } } },
      });
      expect(errorCodes(byBusiness)).toEqual([]);
      expect(byBusiness.structuredContent.booking).toMatchObject({ id, status: 'confirmed' });
    });

    test('an unknown mechanism fails closed (-32006), even next to a valid proof', async () => {
      const e = await conn.callError(
        'usp_bookings_get',
        withAuthorization({ booking_id: st.bookingId, ...usp(A) }, { mechanism: 'magic_link', credential: 'anything' }),
      );
      expect(e.code).toBe(-32006);
      expect(e.data.code).toBe('mechanism_not_accepted');
      const proof = mcpProof(keyA, 'usp_bookings_create', createArgs(A, 'slot_unused'), conn.aud);
      const e2 = await conn.callError(
        'usp_bookings_create',
        withAuthorization(createArgs(A, 'slot_unused'), { mechanism: 'future_mechanism', proof }),
      );
      expect(e2.code).toBe(-32006);
    });
  },
);

describe('proof nonces over MCP Streamable HTTP (security.requireNonce)', () => {
  let http: { server: UspServer; url: string };
  let conn: Conn;
  beforeAll(async () => {
    http = await startHttp({ allowLoopbackProfiles: true, requireNonce: true });
    conn = await connectHttp(http.url);
  });
  afterAll(async () => {
    await conn?.close();
    await http?.server.close();
  });

  test('a proof without nonce -> -32001 proof_nonce_required with data.nonce; retrying with that nonce succeeds', async () => {
    const key = createPopKey();
    const day = nyDate(Date.now(), 4);
    const q = await conn.call('usp_availability_query', { service_id: 'svc_haircut', start_date: day, end_date: day });
    const args = {
      service_id: 'svc_haircut',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...usp(A, { idempotency_key: randomUUID() }),
    };

    const e = await conn.callError('usp_bookings_create', withMcpProof(key, 'usp_bookings_create', args, conn.aud));
    expect(e.code).toBe(-32001);
    expect(e.data.code).toBe('proof_nonce_required');
    expect(e.data.nonce).toEqual(expect.any(String));

    const wrong = await conn.callError(
      'usp_bookings_create',
      withMcpProof(key, 'usp_bookings_create', args, conn.aud, { nonce: `${e.data.nonce}x` }),
    );
    expect(wrong.data.code).toBe('proof_nonce_required');

    const ok = await conn.call(
      'usp_bookings_create',
      withMcpProof(key, 'usp_bookings_create', args, conn.aud, { nonce: e.data.nonce }),
    );
    expect(errorCodes(ok)).toEqual([]);
    expect(ok.structuredContent.booking_scoped_credential.cnf.jkt).toBe(key.jkt);
  });
});
