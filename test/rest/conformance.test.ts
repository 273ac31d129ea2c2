/**
 * Conformance against the official artifacts: a representative call of every REST operation in the
 * operations table, each response body validated against the OpenAPI response schema documented
 * for its status (problems against their documented error status), and the business profile
 * against profile.json#/$defs/BusinessProfile. Every validation must report zero errors.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import {
  assertValid,
  describeConformance,
  restOperations,
  validateRestResponse,
  validateSchemaDef,
} from '../support/spec.js';

type Res = { status: number; body: any; headers: Headers };

describeConformance('every REST operation answers in the shape the official OpenAPI documents', () => {
  let t: TestServer;
  /** "METHOD template" of every operation a validated response was seen for. */
  const covered = new Set<string>();

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  function conforms(method: string, template: string, res: Res, expectedStatus: number): void {
    expect(res.status, `${method} ${template}: ${JSON.stringify(res.body)}`).toBe(expectedStatus);
    assertValid(validateRestResponse(method, template, res.status, res.body), `${method} ${template} ${res.status}`);
    if (res.status < 300) covered.add(`${method} ${template}`);
  }

  /**
   * A business outcome (HTTP 200 + messages[], spec §9.4). Where the official OpenAPI gives the
   * 200 response a required payload (GET /bookings/{id}, GET /waitlist/{id}) or documents no 200
   * at all (POST /availability/holds, POST /bookings), the spec text and the schema disagree; the
   * body is then validated as what it is: the USP envelope plus Message items.
   */
  function outcomeConforms(res: Res, code: string): void {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.messages[0].code).toBe(code);
    assertValid(validateSchemaDef('usp.json', 'USPEnvelope', res.body), `outcome ${code}: envelope`);
    for (const m of res.body.messages)
      assertValid(validateSchemaDef('booking.json', 'Message', m), `outcome ${code}: message`);
  }

  async function firstSlot(serviceId: string, n: number): Promise<{ id: string; start: string }> {
    const res = await t.call(
      'POST',
      '/availability/query',
      { service_id: serviceId, start_date: day(n), end_date: day(n), limit: 1 },
      { profile: null },
    );
    conforms('POST', '/availability/query', res, 200);
    return res.body.slots[0];
  }

  it('the business profile validates against BusinessProfile', async () => {
    const res = await t.call('GET', '/.well-known/usp', undefined, { profile: null });
    expect(res.status).toBe(200);
    assertValid(validateSchemaDef('profile.json', 'BusinessProfile', res.body), 'BusinessProfile');
    assertValid(validateRestResponse('GET', '/.well-known/usp', 200, res.body), 'GET /.well-known/usp 200');
  });

  it('the business profile publishes supported_versions (spec 8.2.4): an empty map of older versions, valid per business_schema', async () => {
    const res = await t.call('GET', '/.well-known/usp', undefined, { profile: null });
    expect(res.body.usp.supported_versions).toEqual({});
    assertValid(validateSchemaDef('usp.json', 'business_schema', res.body.usp), 'usp.json business_schema');
    // The schema checks what a non-empty map would hold: older YYYY-MM-DD keys, URI values.
    const older = {
      ...res.body.usp,
      supported_versions: { '2026-02-21': 'https://salon.example/.well-known/usp-2026-02-21' },
    };
    assertValid(validateSchemaDef('usp.json', 'business_schema', older), 'with an older version');
    expect(
      validateSchemaDef('usp.json', 'business_schema', { ...res.body.usp, supported_versions: { latest: 'x' } }).length,
    ).toBeGreaterThan(0);
  });

  it('catalog: list, get, lookup and feed, with their problems', async () => {
    conforms(
      'POST',
      '/services/list',
      await t.call('POST', '/services/list', { query: 'hair', pagination: { limit: 2 } }, { profile: null }),
      200,
    );
    conforms(
      'POST',
      '/services/list',
      await t.call('POST', '/services/list', { filters: { type: 'group' } }, { profile: null }),
      200,
    );
    conforms(
      'POST',
      '/services/list',
      await t.call('POST', '/services/list', { pagination: { cursor: 'garbage' } }, { profile: null }),
      400,
    );
    for (const id of [
      'svc_haircut',
      'svc_yoga_class',
      'svc_color_consult',
      'svc_massage_60',
      'svc_bridal_trial',
      'svc_home_blowout',
    ]) {
      conforms(
        'GET',
        '/services/{service_id}',
        await t.call('GET', `/services/${id}`, undefined, { profile: null }),
        200,
      );
    }
    // An unknown id in the path: the 404 problem the OpenAPI documents (spec-next 3.12.3, 9.4.1).
    conforms(
      'GET',
      '/services/{service_id}',
      await t.call('GET', '/services/svc_nope', undefined, { profile: null }),
      404,
    );
    conforms(
      'POST',
      '/services/lookup',
      await t.call('POST', '/services/lookup', { ids: ['svc_haircut', 'svc_haircut', 'svc_nope'] }, { profile: null }),
      200,
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => `svc_${i}`);
    conforms(
      'POST',
      '/services/lookup',
      await t.call('POST', '/services/lookup', { ids: tooMany }, { profile: null }),
      422,
    );
    const feed = await t.call('GET', '/services/feed?limit=2', undefined, { profile: null });
    conforms('GET', '/services/feed', feed, 200);
    const next = await t.call(
      'GET',
      `/services/feed?limit=2&cursor=${encodeURIComponent(feed.body.pagination.next_cursor)}`,
      undefined,
      { profile: null },
    );
    conforms('GET', '/services/feed', next, 200);
    conforms(
      'GET',
      '/services/feed',
      await t.call('GET', '/services/feed?cursor=garbage', undefined, { profile: null }),
      400,
    );
  });

  it('feed subscriptions: create, get, pause, resume, cancel, and an unknown id', async () => {
    const created = await t.call('POST', '/services/feed/subscriptions', {
      callback_url: 'https://platform.example/hooks/catalog',
      categories: ['cat_yoga'],
    });
    conforms('POST', '/services/feed/subscriptions', created, 201);
    const id = created.body.subscription.id;
    const base = '/services/feed/subscriptions/{subscription_id}';
    conforms('GET', base, await t.call('GET', `/services/feed/subscriptions/${id}`), 200);
    const paused = await t.call('POST', `/services/feed/subscriptions/${id}/pause`, {});
    conforms('POST', `${base}/pause`, paused, 200);
    expect(paused.body.subscription.status).toBe('paused');
    const resumed = await t.call('POST', `/services/feed/subscriptions/${id}/resume`, {});
    conforms('POST', `${base}/resume`, resumed, 200);
    expect(resumed.body.subscription.status).toBe('active');
    const canceled = await t.call('DELETE', `/services/feed/subscriptions/${id}`);
    conforms('DELETE', base, canceled, 200);
    expect(canceled.body.subscription.status).toBe('canceled');
    conforms('POST', `${base}/resume`, await t.call('POST', `/services/feed/subscriptions/${id}/resume`, {}), 409);
    conforms('GET', base, await t.call('GET', '/services/feed/subscriptions/sub_nope'), 404);
    conforms(
      'POST',
      '/services/feed/subscriptions',
      await t.call('POST', '/services/feed/subscriptions', { callback_url: 'http://insecure.example/hook' }),
      400,
    );
  });

  it('availability: query (appointment, class, waitlist state), hold, release, and their problems', async () => {
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(1), end_date: day(2), limit: 5 },
        { profile: null },
      ),
      200,
    );
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1) },
        { profile: null },
      ),
      200,
    );
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1), party_size: 13 },
        { profile: null },
      ),
      200,
    );
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_nope', start_date: day(1), end_date: day(1) },
        { profile: null },
      ),
      200,
    );
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(1), end_date: day(50) },
        { profile: null },
      ),
      422,
    );
    conforms(
      'POST',
      '/availability/query',
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(3), end_date: day(1) },
        { profile: null },
      ),
      400,
    );

    const slot = await firstSlot('svc_haircut', 3);
    const hold = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id });
    conforms('POST', '/availability/holds', hold, 201);
    const classSlot = await firstSlot('svc_yoga_class', 3);
    conforms(
      'POST',
      '/availability/holds',
      await t.call('POST', '/availability/holds', { service_id: 'svc_yoga_class', slot_id: classSlot.id, spots: 3 }),
      201,
    );
    const rel = await t.call('DELETE', `/availability/holds/${hold.body.hold.id}`);
    conforms('DELETE', '/availability/holds/{hold_id}', rel, 200);
    conforms(
      'DELETE',
      '/availability/holds/{hold_id}',
      await t.call('DELETE', `/availability/holds/${hold.body.hold.id}`),
      200,
    );
    const taken = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id });
    conforms('POST', '/availability/holds', taken, 201);
    outcomeConforms(
      await t.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: slot.id },
        { profile: 'https://rival.example/p.json' },
      ),
      'slot_unavailable',
    );
    outcomeConforms(await t.call('DELETE', '/availability/holds/hld_nope'), 'hold_not_found');

    // The hold limit (D10): three holds on one service, the fourth is a 429 problem.
    const greedy = 'https://greedy.example/profile.json';
    for (let i = 0; i < 3; i++) {
      const s = await firstSlot('svc_massage_60', 4);
      conforms(
        'POST',
        '/availability/holds',
        await t.call(
          'POST',
          '/availability/holds',
          { service_id: 'svc_massage_60', slot_id: s.id },
          { profile: greedy },
        ),
        201,
      );
    }
    const s4 = await firstSlot('svc_massage_60', 4);
    conforms(
      'POST',
      '/availability/holds',
      await t.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_massage_60', slot_id: s4.id },
        { profile: greedy },
      ),
      429,
    );
    conforms(
      'POST',
      '/availability/holds',
      await t.call('POST', '/availability/holds', { service_id: 'svc_haircut' }),
      400,
    );
    conforms(
      'POST',
      '/availability/holds',
      await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id }, { profile: null }),
      400,
    );
  });

  it('bookings: create, get, update, cancel, reschedule, business confirm and confirm-payment', async () => {
    // Auto-confirmed appointment, paid at the service.
    const s1 = await firstSlot('svc_haircut', 5);
    const created = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: s1.id,
      buyer: { ...BUYER, phone_number: '+12125550100' },
      notes: 'Short on the sides',
    });
    conforms('POST', '/bookings', created, 201);
    const id = created.body.booking.id;
    const got = await t.call('GET', `/bookings/${id}`);
    conforms('GET', '/bookings/{booking_id}', got, 200);
    const updated = await t.call('PUT', `/bookings/${id}`, {
      notes: 'Also a beard trim',
      recipient: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' },
    });
    conforms('PUT', '/bookings/{booking_id}', updated, 200);
    const s2 = (
      await t.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(6), end_date: day(6), limit: 1 },
        { profile: null },
      )
    ).body.slots[0];
    const moved = await t.call('POST', `/bookings/${id}/reschedule`, { slot_id: s2.id });
    conforms('POST', '/bookings/{booking_id}/reschedule', moved, 200);
    expect(moved.body.booking.slot.id).toBe(s2.id);
    const canceled = await t.call('POST', `/bookings/${id}/cancel`, { reason: 'Travel' });
    conforms('POST', '/bookings/{booking_id}/cancel', canceled, 200);
    expect(canceled.body.booking.status).toBe('canceled');
    // Acting on a canceled booking: HTTP 200 invalid_transition with the booking as it is (spec-next 5.1.1, D2).
    const refused = await t.call('POST', `/bookings/${id}/reschedule`, { slot_id: s1.id });
    conforms('POST', '/bookings/{booking_id}/reschedule', refused, 200);
    outcomeConforms(refused, 'invalid_transition');
    conforms('GET', '/bookings/{booking_id}', await t.call('GET', '/bookings/bkg_nope'), 404);
    conforms(
      'POST',
      '/bookings',
      await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: s1.id }),
      400,
    );

    const s3 = await firstSlot('svc_haircut', 7);
    const other = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: s3.id, buyer: BUYER });
    conforms('POST', '/bookings', other, 201);
    outcomeConforms(
      await t.call(
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: s3.id, buyer: BUYER },
        { profile: 'https://rival.example/p.json' },
      ),
      'slot_unavailable',
    );
    conforms(
      'PUT',
      '/bookings/{booking_id}',
      await t.call('PUT', `/bookings/${other.body.booking.id}`, { notes: 'x' }, { ifMatch: '"rev_stale"' }),
      412,
    );

    // Manual confirmation, confirmed by the business (D8); without the admin key a 401.
    const s4 = await firstSlot('svc_color_consult', 5);
    const manual = await t.call('POST', '/bookings', { service_id: 'svc_color_consult', slot_id: s4.id, buyer: BUYER });
    conforms('POST', '/bookings', manual, 201);
    expect(manual.body.booking.status).toBe('pending');
    const mid = manual.body.booking.id;
    conforms('POST', '/bookings/{booking_id}/confirm', await t.call('POST', `/bookings/${mid}/confirm`, {}), 401);
    const confirmed = await t.call(
      'POST',
      `/bookings/${mid}/confirm`,
      { notes: 'See you soon' },
      { profile: null, apiKey: ADMIN_KEY },
    );
    conforms('POST', '/bookings/{booking_id}/confirm', confirmed, 200);
    expect(confirmed.body.booking.status).toBe('confirmed');

    // Paid at booking: requires_action with a payment action, then confirm-payment.
    const s5 = await firstSlot('svc_massage_60', 5);
    const paid = await t.call('POST', '/bookings', { service_id: 'svc_massage_60', slot_id: s5.id, buyer: BUYER });
    conforms('POST', '/bookings', paid, 201);
    expect(paid.body.booking.status).toBe('requires_action');
    const pid = paid.body.booking.id;
    const due = paid.body.booking.actions[0].payment_context.amount_due;
    conforms('GET', '/bookings/{booking_id}', await t.call('GET', `/bookings/${pid}`), 200);
    const wrongAmount = await t.call('POST', `/bookings/${pid}/confirm-payment`, {
      payment_result: { status: 'paid', transaction_id: 'txn_1', amount_paid: due - 1, currency: 'USD' },
    });
    conforms('POST', '/bookings/{booking_id}/confirm-payment', wrongAmount, 200);
    const settled = await t.call('POST', `/bookings/${pid}/confirm-payment`, {
      payment_result: {
        status: 'paid',
        transaction_id: 'txn_2',
        amount_paid: due,
        currency: 'USD',
        provider: 'stripe',
      },
    });
    conforms('POST', '/bookings/{booking_id}/confirm-payment', settled, 200);
    expect(settled.body.booking.status).toBe('confirmed');

    // Deposit and at-buyer-location services.
    const s6 = await firstSlot('svc_bridal_trial', 5);
    conforms(
      'POST',
      '/bookings',
      await t.call('POST', '/bookings', { service_id: 'svc_bridal_trial', slot_id: s6.id, buyer: BUYER }),
      201,
    );
    const s7 = await firstSlot('svc_home_blowout', 5);
    const home = await t.call('POST', '/bookings', {
      service_id: 'svc_home_blowout',
      slot_id: s7.id,
      buyer: BUYER,
      delivery_address: { line1: '1 Main St', city: 'New York', country: 'US', postal_code: '10001' },
    });
    conforms('POST', '/bookings', home, 201);
  });

  it('waitlist: join, list, get, accept an offer, decline an offer, leave', async () => {
    // Fill one class slot with a party of 12, queue two buyers for it, then free the places.
    const slot = await firstSlot('svc_yoga_class', 8);
    const big = await t.call('POST', '/bookings', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: BUYER,
      party_size: 12,
    });
    conforms('POST', '/bookings', big, 201);
    const join = (email: string) =>
      t.call('POST', '/waitlist', { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: { ...BUYER, email } });
    const first = await join('first@example.com');
    conforms('POST', '/waitlist', first, 201);
    const second = await join('second@example.com');
    conforms('POST', '/waitlist', second, 201);
    const third = await t.call('POST', '/waitlist', {
      service_id: 'svc_yoga_class',
      buyer: { ...BUYER, email: 'third@example.com' },
      preferred_slots: [{ start_date: day(20), end_date: day(21), time_of_day: 'evening' }],
    });
    conforms('POST', '/waitlist', third, 201);

    conforms(
      'POST',
      '/waitlist/list',
      await t.call('POST', '/waitlist/list', { service_id: 'svc_yoga_class', pagination: { limit: 2 } }),
      200,
    );
    conforms('POST', '/waitlist/list', await t.call('POST', '/waitlist/list', { status: 'waiting' }), 200);
    conforms('GET', '/waitlist/{entry_id}', await t.call('GET', `/waitlist/${first.body.entry.id}`), 200);
    conforms('GET', '/waitlist/{entry_id}', await t.call('GET', '/waitlist/wle_nope'), 404);

    // Canceling the party of 12 frees places: the first entries in line get offers.
    const cancel = await t.call(
      'POST',
      `/bookings/${big.body.booking.id}/cancel`,
      {},
      { profile: null, apiKey: ADMIN_KEY },
    );
    conforms('POST', '/bookings/{booking_id}/cancel', cancel, 200);
    const offered1 = await t.call('GET', `/waitlist/${first.body.entry.id}`);
    conforms('GET', '/waitlist/{entry_id}', offered1, 200);
    expect(offered1.body.entry.status).toBe('offered');

    const declined = await t.call('POST', `/waitlist/${first.body.entry.id}/decline`, {});
    conforms('POST', '/waitlist/{entry_id}/decline', declined, 200);
    expect(declined.body.entry.status).toBe('declined');

    const offered2 = await t.call('GET', `/waitlist/${second.body.entry.id}`);
    expect(offered2.body.entry.status).toBe('offered');
    const accepted = await t.call('POST', `/waitlist/${second.body.entry.id}/accept`, {});
    conforms('POST', '/waitlist/{entry_id}/accept', accepted, 200);
    expect(accepted.body.entry.status).toBe('accepted');
    expect(accepted.body.booking.id).toMatch(/^bkg_/);
    conforms(
      'POST',
      '/waitlist/{entry_id}/accept',
      await t.call('POST', `/waitlist/${second.body.entry.id}/accept`, {}),
      200,
    );

    const left = await t.call('DELETE', `/waitlist/${third.body.entry.id}`);
    conforms('DELETE', '/waitlist/{entry_id}', left, 200);
    expect(left.body.entry.status).toBe('removed');
    conforms('DELETE', '/waitlist/{entry_id}', await t.call('DELETE', `/waitlist/${second.body.entry.id}`), 409);
    conforms('POST', '/waitlist/list', await t.call('POST', '/waitlist/list', { status: 'sleeping' }), 400);
  });

  it('every operation of the table that the official OpenAPI documents was exercised', () => {
    const documented = new Set(restOperations().map((o) => `${o.method} ${o.path}`));
    const ours = OPERATIONS.map((o) => `${o.rest.method} ${o.rest.path}`).filter((k) => documented.has(k));
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.filter((k) => !covered.has(k))).toEqual([]);
  });
});
