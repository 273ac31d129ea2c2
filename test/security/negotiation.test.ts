/**
 * Version and capability negotiation against the fetched platform profile (spec 8.3, 8.4,
 * decision D6): the 8.4 table, a platform whose version is newer than ours is refused with
 * version_unsupported and an older one is served; one that declares capabilities but none an
 * operation needs gets capabilities_incompatible as a business outcome, and so does one declaring
 * `capabilities: {}` (an empty intersection, 8.3 step 6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPopKey, dpopHeaders } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { demoBusiness } from '../support/server.js';

describe('negotiation with the platform profile on privileged calls', () => {
  let server: UspServer;
  let url: string;
  let profiles: ProfileServer;

  beforeAll(async () => {
    profiles = await startProfileServer();
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: false,
      log: silentLogger,
      sweepIntervalMs: 0,
      security: { allowLoopbackProfiles: true },
    });
    url = await server.listen(0);
  });
  afterAll(async () => {
    await server.close();
    await profiles.close();
  });

  async function hold(profile: string) {
    const day = nyDate(Date.now(), 3);
    const q: any = await (
      await fetch(`${url}/availability/query`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
      })
    ).json();
    const key = createPopKey();
    const res = await fetch(`${url}/availability/holds`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'USP-Agent': `profile="${profile}"`,
        ...dpopHeaders(key, 'POST', `${url}/availability/holds`),
      },
      body: JSON.stringify({ service_id: 'svc_haircut', slot_id: q.slots[0].id }),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('a platform declaring a newer version than ours is refused with version_unsupported (400)', async () => {
    const caps = { 'dev.usp-protocol.services.availability': [{ version: '2026-08-20' }] };
    const p = profiles.setRaw(
      '/new.json',
      JSON.stringify({ usp: { version: '2027-03-01', capabilities: caps } }),
      200,
      { 'Content-Type': 'application/json' },
    );
    const r = await hold(p);
    expect(r.status).toBe(400);
    expect(r.body.type).toBe('https://usp-protocol.dev/errors/version-unsupported');
  });

  it('a platform declaring an older version than ours is served', async () => {
    const caps = { 'dev.usp-protocol.services.availability': [{ version: '2025-10-01' }] };
    const p = profiles.setRaw(
      '/old.json',
      JSON.stringify({ usp: { version: '2025-10-01', capabilities: caps } }),
      200,
      { 'Content-Type': 'application/json' },
    );
    const r = await hold(p);
    expect(r.status).toBe(201);
    expect(r.body.hold.status).toBe('active');
  });

  it('a platform declaring capabilities {} shares none: capabilities_incompatible, as HTTP 200', async () => {
    const p = profiles.setRaw(
      '/empty.json',
      JSON.stringify({ usp: { version: '2026-08-20', capabilities: {} } }),
      200,
      { 'Content-Type': 'application/json' },
    );
    const r = await hold(p);
    expect(r.status).toBe(200);
    expect(r.body.messages[0].code).toBe('capabilities_incompatible');
    expect(r.body.hold).toBeUndefined();
  });

  it('a platform declaring only the catalog gets capabilities_incompatible on a hold, as HTTP 200', async () => {
    const caps = { 'dev.usp-protocol.services.catalog': [{ version: '2026-08-20' }] };
    const p = profiles.setRaw(
      '/catalog-only.json',
      JSON.stringify({ usp: { version: '2026-08-20', capabilities: caps } }),
      200,
      { 'Content-Type': 'application/json' },
    );
    const r = await hold(p);
    expect(r.status).toBe(200);
    expect(r.body.messages[0].code).toBe('capabilities_incompatible');
    expect(r.body.hold).toBeUndefined();
  });

  it('a platform declaring availability, or the default test platform (every capability), is served', async () => {
    const caps = { 'dev.usp-protocol.services.availability': [{ version: '2026-08-20' }] };
    const p1 = profiles.setRaw(
      '/avail.json',
      JSON.stringify({ usp: { version: '2026-08-20', capabilities: caps } }),
      200,
      { 'Content-Type': 'application/json' },
    );
    expect((await hold(p1)).status).toBe(201);
    const p2 = profiles.addProfile('/plain.json');
    expect((await hold(p2)).status).toBe(201);
  });

  /** Book the first haircut slot `days` ahead and cancel it twice, all under one key and profile. */
  async function cancelTwice(profile: string, days: number) {
    const day = nyDate(Date.now(), days);
    const q: any = await (
      await fetch(`${url}/availability/query`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
      })
    ).json();
    const key = createPopKey();
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'USP-Agent': `profile="${profile}"`,
          ...dpopHeaders(key, 'POST', `${url}${path}`),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const b = await post('/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.slots[0].id,
      buyer: { first_name: 'Ada', last_name: 'L', email: 'ada@example.com' },
    });
    expect(b.body.booking.status).toBe('confirmed');
    expect((await post(`/bookings/${b.body.booking.id}/cancel`, {})).body.booking.status).toBe('canceled');
    return post(`/bookings/${b.body.booking.id}/cancel`, {});
  }

  const everything = (version: string, more: string[] = []) => ({
    usp: {
      version,
      capabilities: Object.fromEntries(
        ['catalog', 'availability', 'bookings', ...more].map((c) => [
          `dev.usp-protocol.services.${c}`,
          [{ version: '2026-08-20' }],
        ]),
      ),
    },
  });

  it("invalid_transition: a platform at our version gets the newer text's HTTP 200 outcome; one that negotiated an older version the pinned 409 booking-state-conflict (D2)", async () => {
    const current = profiles.setRaw('/current.json', JSON.stringify(everything('2026-08-20')), 200, {
      'Content-Type': 'application/json',
    });
    const now = await cancelTwice(current, 3);
    expect([now.status, now.body.messages.map((m: any) => m.code), now.body.booking.status]).toEqual([
      200,
      ['invalid_transition'],
      'canceled',
    ]);
    const older = profiles.setRaw('/older.json', JSON.stringify(everything('2025-10-01')), 200, {
      'Content-Type': 'application/json',
    });
    const then = await cancelTwice(older, 4);
    expect([then.status, then.body.type, then.body.code, then.body.current_status]).toEqual([
      409,
      'https://usp-protocol.dev/errors/booking-state-conflict',
      'booking_state_conflict',
      'canceled',
    ]);
  });

  it('an unknown booking in the path: a platform at our version gets the 404 problem booking-not-found; one of an older negotiated version the pinned 200 outcome (D3)', async () => {
    const get = async (profile: string) => {
      const key = createPopKey();
      const res = await fetch(`${url}/bookings/bkg_nope`, {
        headers: { 'USP-Agent': `profile="${profile}"`, ...dpopHeaders(key, 'GET', `${url}/bookings/bkg_nope`) },
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const current = await get(
      profiles.setRaw('/current-nf.json', JSON.stringify(everything('2026-08-20')), 200, {
        'Content-Type': 'application/json',
      }),
    );
    expect([current.status, current.body.type, current.body.code]).toEqual([
      404,
      'https://usp-protocol.dev/errors/booking-not-found',
      'booking_not_found',
    ]);
    const older = await get(
      profiles.setRaw('/older-nf.json', JSON.stringify(everything('2025-10-01')), 200, {
        'Content-Type': 'application/json',
      }),
    );
    expect([older.status, older.body.messages.map((m: any) => m.code), older.body.booking]).toEqual([
      200,
      ['booking_not_found'],
      undefined,
    ]);
  });

  /** A public call presenting `profile` with a fresh proof: the platform authenticates on a public read. */
  async function publicCall(profile: string, method: string, path: string, body?: unknown) {
    const key = createPopKey();
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        'Content-Type': 'application/json',
        'USP-Agent': `profile="${profile}"`,
        ...dpopHeaders(key, method, `${url}${path}`),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as any;
  }

  it('extension data the platform did not negotiate is left out of public answers: no capacity.waitlist, no slot in state waitlist (8.3 step 4)', async () => {
    const withWaitlist = profiles.setRaw(
      '/with-waitlist.json',
      JSON.stringify(everything('2026-08-20', ['waitlist'])),
      200,
      { 'Content-Type': 'application/json' },
    );
    const without = profiles.setRaw('/without-waitlist.json', JSON.stringify(everything('2026-08-20')), 200, {
      'Content-Type': 'application/json',
    });
    expect((await publicCall(withWaitlist, 'GET', '/services/svc_yoga_class')).service.capacity.waitlist).toBe(true);
    const pruned = await publicCall(without, 'GET', '/services/svc_yoga_class');
    expect([pruned.service.capacity.max, pruned.service.capacity.waitlist]).toEqual([12, undefined]);
    expect(Object.keys(pruned.usp.capabilities)).not.toContain('dev.usp-protocol.services.waitlist');
    // Fill a class, then read its day: the full slot is on the waitlist for one platform, not offered to the other.
    const day = nyDate(Date.now(), 5);
    const query = { service_id: 'svc_yoga_class', start_date: day, end_date: day };
    const [slot] = (await publicCall(withWaitlist, 'POST', '/availability/query', query)).slots;
    const key = createPopKey();
    const fill = await fetch(`${url}/bookings`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'USP-Agent': `profile="${withWaitlist}"`,
        ...dpopHeaders(key, 'POST', `${url}/bookings`),
      },
      body: JSON.stringify({
        service_id: 'svc_yoga_class',
        slot_id: slot.id,
        party_size: slot.capacity.remaining,
        buyer: { first_name: 'Ada', last_name: 'L', email: 'ada@example.com' },
      }),
    });
    expect(((await fill.json()) as any).booking.status).toBe('confirmed');
    const seen = (await publicCall(withWaitlist, 'POST', '/availability/query', query)).slots.find(
      (s: any) => s.id === slot.id,
    );
    expect(seen?.state).toBe('waitlist');
    const hidden = (await publicCall(without, 'POST', '/availability/query', query)).slots;
    expect(hidden.find((s: any) => s.id === slot.id)).toBeUndefined();
    expect(hidden.every((s: any) => s.state !== 'waitlist' && s.capacity?.waitlist === undefined)).toBe(true);
  });
});
