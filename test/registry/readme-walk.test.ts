/**
 * The README's registry walk ("Discovery registry: find a business, then book at its door"), as an
 * agent does it, with real processes on loopback: `usp-server registry --demo` and
 * `usp-server serve --demo --register-with` it. An official MCP SDK client connected to the
 * registry finds the business by place, price and category; the agent fetches the profile the result
 * names, connects a second MCP client to the MCP endpoint that profile declares, and books there.
 * Issue 14's definition of done.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { BUYER, PLATFORM } from '../support/server.js';
import { connectMcp, meta, nyDate, type McpConn } from '../mcp/helpers.js';
import { eventually, startRegistryCli, type RunningRegistry } from './processes.js';

// The README's search: "a haircut near Hudson Street under $200".
const SEARCH = {
  location: { coordinates: { lat: 40.7251, lng: -74.0079 }, radius_km: 3 },
  categories: ['cat_hair'],
  price_range: { max: 20000, currency: 'USD' },
};

describe('the README registry walk: find a business at the registry, then book at its own door', () => {
  let registry: RunningRegistry;
  let business: RunningCli;
  const conns: McpConn[] = [];

  beforeAll(async () => {
    ensureBuilt();
    registry = await startRegistryCli([
      '--demo',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--db',
      ':memory:',
      '--allow-loopback-profiles',
      '--no-rate-limit',
    ]);
    business = await startServeCli(
      ['--demo', '--port', '0', '--host', '127.0.0.1', '--db', ':memory:', '--register-with', registry.url],
      { timeoutMs: 20_000 },
    );
  }, 60_000);
  afterAll(async () => {
    for (const c of conns) await c.close();
    await business?.stop();
    await registry?.stop();
  });

  it('search over MCP at the registry, fetch the profile, connect to its MCP endpoint, and book', async () => {
    expect(new URL(registry.url).hostname).toBe('127.0.0.1');
    expect(new URL(business.url).hostname).toBe('127.0.0.1');
    const atRegistry = await connectMcp('v2', 'http', registry.url);
    conns.push(atRegistry);
    const ownProfile = `${business.url}/.well-known/usp`;

    // 1. At the registry: place, price and category. The demo registry also holds the demo salon
    //    at localhost:8787 (not running here); the business we started registered itself.
    const hit = await eventually(
      async () => {
        const r = await atRegistry.call('usp_registry_search_services', SEARCH);
        expect(r.isError).toBeFalsy();
        const ours = (r.structuredContent.services as Array<Record<string, any>>).filter(
          (s) => s.business.profile_url === ownProfile,
        );
        // The agent wants a haircut: of the hair services found there, the haircut.
        return ours.find((s) => s.service_id === 'svc_haircut');
      },
      20_000,
      'the business registered itself and its haircut is found by place, price and category',
    );
    expect(hit.pricing.currency).toBe('USD');
    expect(hit.pricing.amount).toBeLessThanOrEqual(20000);

    // 2. The registry is not authoritative: read the business's own profile and find its MCP door.
    const res = await fetch(hit.business.profile_url, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    const profile = (await res.json()) as {
      usp: { services: Record<string, Array<{ transport: string; endpoint: string }>> };
    };
    const mcpEndpoint = profile.usp.services['dev.usp-protocol.services']!.find((b) => b.transport === 'mcp')!.endpoint;
    expect(mcpEndpoint).toBe(`${business.url}/mcp`);

    // 3. At the business's own door: the live service, availability, a hold, the booking.
    const atBusiness = await connectMcp('v2', 'http', new URL('.', mcpEndpoint).href.replace(/\/$/, ''));
    conns.push(atBusiness);
    const service = await atBusiness.call('usp_services_get', { service_id: hit.service_id });
    expect(service.isError).toBeFalsy();
    expect(service.structuredContent.service.id).toBe(hit.service_id);

    const now = Date.now();
    const slots = await atBusiness.call('usp_availability_query', {
      service_id: hit.service_id,
      start_date: nyDate(now, 1),
      end_date: nyDate(now, 7),
    });
    expect(slots.isError).toBeFalsy();
    const slot = (slots.structuredContent.slots as Array<{ id: string }>)[0];
    expect(slot, 'an open slot in the coming week').toBeDefined();

    const hold = await atBusiness.call('usp_availability_hold', {
      service_id: hit.service_id,
      slot_id: slot.id,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    expect(hold.isError).toBeFalsy();
    const holdId = hold.structuredContent.hold.id as string;

    const created = await atBusiness.call('usp_bookings_create', {
      service_id: hit.service_id,
      slot_id: slot.id,
      hold_id: holdId,
      buyer: BUYER,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent.booking).toMatchObject({
      service_id: hit.service_id,
      status: expect.stringMatching(/^(confirmed|pending)$/),
    });

    // The booking lives at the business, not at the registry.
    const read = await atBusiness.call('usp_bookings_get', {
      booking_id: created.structuredContent.booking.id,
      ...meta(),
    });
    expect(read.structuredContent.booking.id).toBe(created.structuredContent.booking.id);
  }, 90_000);
});
