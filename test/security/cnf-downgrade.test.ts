/**
 * A booking-scoped credential whose issued form carried `cnf` is never a bearer token, whatever
 * mechanism the caller declares (spec 9.2.4 item 8, CONFORMANCE: "M! fall back to another
 * presented mechanism"): presented without its proof it is treated as absent and the call is
 * refused with pop_proof_missing, even when an API key that would be good rides beside it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPopKey, withMcpProof } from '../../src/client/platform-auth.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { BUYER, demoBusiness } from '../support/server.js';
import { ManualClock, silentLogger } from '../../src/operations/index.js';
import { TEST_NOW } from '../support/time.js';
import { firstSlotAt, mcpCallAt } from '../oauth/support.js';

let server: UspServer;
let url: string;
let profiles: ProfileServer;
let profile: string;
let bookingId: string;
let credential: string;
const platformKey = `uspk_${randomUUID().replace(/-/g, '')}`;

beforeAll(async () => {
  profiles = await startProfileServer();
  profile = profiles.addProfile('/platform.json');
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    clock: new ManualClock(TEST_NOW),
    log: silentLogger,
    sweepIntervalMs: 0,
    webhooks: { enabled: false },
    security: { allowLoopbackProfiles: true },
  });
  url = await server.listen(0, '127.0.0.1');
  await server.store.transaction((tx) =>
    tx.admin.addPlatformKey({
      id: 'pk_beside',
      sha256: createHash('sha256').update(platformKey).digest('hex'),
      label: 'Beside',
      created_ms: Date.now(),
      revoked_ms: null,
    }),
  );
  // A booking made with platform_key_pop: its credential is bound to the key (cnf.jkt). The proof's
  // iat is the business clock's, which the server checks proofs against.
  const key = createPopKey();
  const args = {
    service_id: 'svc_haircut',
    slot_id: await firstSlotAt(url, 3),
    buyer: BUYER,
    _meta: { usp: { profile, idempotency_key: randomUUID() } },
  };
  const made = await mcpCallAt(
    url,
    'usp_bookings_create',
    withMcpProof(key, 'usp_bookings_create', args, `${url}/.well-known/usp`, { iat: Math.floor(TEST_NOW / 1000) }),
  );
  bookingId = made.body.result.structuredContent.booking.id;
  credential = made.body.result.structuredContent.booking_scoped_credential.value;
  expect(made.body.result.structuredContent.booking_scoped_credential.cnf.jkt).toBe(key.jkt);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await profiles?.close();
});

const authorization = (a: Record<string, string>) => ({ _meta: { usp: { profile, authorization: a } } });

describe('a cnf-bound credential without its proof is absent, whatever mechanism is declared', () => {
  test('presented as mechanism api_key, the credential is not tried as an API key (or a token): -32001 pop_proof_missing', async () => {
    const r = await mcpCallAt(url, 'usp_bookings_get', {
      booking_id: bookingId,
      ...authorization({ mechanism: 'api_key', credential }),
    });
    expect(r.body.error.code).toBe(-32001);
    expect(r.body.error.data.code).toBe('pop_proof_missing');
  });

  test('the credential on the Authorization header beside a valid API key in mechanism api_key does not fall back to the key: pop_proof_missing, nothing changes', async () => {
    const cancel = await mcpCallAt(
      url,
      'usp_bookings_cancel',
      { booking_id: bookingId, ...authorization({ mechanism: 'api_key', credential: platformKey }) },
      { authorization: `Bearer ${credential}` },
    );
    expect(cancel.body.error?.data?.code).toBe('pop_proof_missing');
    expect((await server.store.read((tx) => tx.bookings.get(bookingId)))?.booking.status).toBe('confirmed');
  });

  test('the same API key alone is a credential of its own (the refusal above is the credential’s, not the key’s)', async () => {
    const r = await mcpCallAt(url, 'usp_availability_hold', {
      service_id: 'svc_haircut',
      slot_id: await firstSlotAt(url, 5),
      ...authorization({ mechanism: 'api_key', credential: platformKey }),
    });
    expect(r.body.result.structuredContent.hold.id).toMatch(/^hld_/);
  });
});
