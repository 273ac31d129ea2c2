/**
 * A booking-scoped credential lives until a day after its slot (its actionable window), fixed when
 * it is issued. Spec-next 5.3.6 (SHOULD): when a reschedule moves the booking past that, the
 * reschedule answer carries a fresh credential for the new slot, bound to the same key, as creation
 * does; the old one may be left to expire on its own. A server on the real clock, so dates come from
 * it; the platform authenticates with DPoP and its profile is served on loopback.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPopKey, dpopHeaders, type PopKey } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { BUYER, demoBusiness } from '../support/server.js';

let profiles: ProfileServer;
let server: UspServer;
let url: string;
let profile: string;

beforeAll(async () => {
  profiles = await startProfileServer();
  profile = profiles.addProfile('/platform.json');
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true },
  });
  url = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await profiles?.close();
});

async function send(
  method: string,
  path: string,
  key: PopKey,
  body?: unknown,
  credential?: string,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    'USP-Agent': `profile="${profile}"`,
    ...dpopHeaders(key, method, `${url}${path}`, credential ? { credential } : {}),
  };
  if (body !== undefined)
    Object.assign(headers, { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() });
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Free haircut slots `days` ahead of the server's today. */
async function slots(days: number): Promise<any[]> {
  const day = nyDate(Date.now(), days);
  const r = await fetch(`${url}/availability/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
  });
  return ((await r.json()) as any).slots;
}

const DAY = 86_400_000;

describe('a reschedule past the credential it was made with re-issues one (spec-next 5.3.6)', () => {
  test('moved a week later: the answer carries a new credential bound to the same key, lasting a day past the new slot; the old one still works until it lapses', async () => {
    const key = createPopKey();
    const made = await send('POST', '/bookings', key, {
      service_id: 'svc_haircut',
      slot_id: (await slots(3))[0].id,
      buyer: BUYER,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.booking.id;
    const first = made.body.booking_scoped_credential;
    expect(Date.parse(first.expires_at)).toBe(Date.parse(made.body.booking.slot.end) + DAY);

    const later = (await slots(10))[0];
    const moved = await send('POST', `/bookings/${id}/reschedule`, key, { slot_id: later.id }, first.value);
    expect([moved.status, moved.body.booking?.slot?.start], JSON.stringify(moved.body)).toEqual([200, later.start]);
    const fresh = moved.body.booking_scoped_credential;
    expect(fresh).toMatchObject({ value: expect.stringMatching(/^bsc_/), cnf: { jkt: key.jkt } });
    expect(fresh.value).not.toBe(first.value);
    expect(Date.parse(fresh.expires_at)).toBe(Date.parse(moved.body.booking.slot.end) + DAY);
    expect(Date.parse(fresh.expires_at)).toBeGreaterThan(Date.parse(first.expires_at));

    // Both work now: the new one, and the old one until it lapses (it is not revoked).
    expect((await send('GET', `/bookings/${id}`, key, undefined, fresh.value)).body.booking.id).toBe(id);
    expect((await send('GET', `/bookings/${id}`, key, undefined, first.value)).body.booking.id).toBe(id);
  });

  test('moved within the old credential’s lifetime (later the same day): no new credential', async () => {
    const key = createPopKey();
    const day = await slots(4);
    const made = await send('POST', '/bookings', key, { service_id: 'svc_haircut', slot_id: day[0].id, buyer: BUYER });
    const target = day.find((s) => Date.parse(s.start) >= Date.parse(made.body.booking.slot.end) + 3_600_000);
    expect(target, 'a later haircut slot the same day').toBeDefined();
    const moved = await send('POST', `/bookings/${made.body.booking.id}/reschedule`, key, { slot_id: target.id });
    expect([moved.status, moved.body.booking?.slot?.start], JSON.stringify(moved.body)).toEqual([200, target.start]);
    expect(moved.body.booking_scoped_credential).toBeUndefined();
  });
});
