/**
 * The business definition is shared by every process on one PostgreSQL database: two real
 * `usp-server serve --demo` processes, an admin edit made through one (a price, a stylist's hours,
 * a new service) is what the other answers on its very next request, on REST and MCP alike.
 * Skipped, with the reason in the title, when no PostgreSQL URL is configured.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { nyDate } from '../mcp/helpers.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const KEY = 'two-process-admin-key-0123456789';

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers.Authorization = `Bearer ${key}`;
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

if (!PG_URL) {
  describe.skip(noteSkipped('two server processes sharing one business definition'), () => {
    test('an edit in one is visible in the other', () => {});
  });
} else {
  describe('two serve processes on PostgreSQL: an edit in one is visible in the other on its next request', () => {
    const schema = schemaName('usp_def');
    const db = urlWithSchema(schema);
    let a: RunningCli;
    let b: RunningCli;
    const date = nyDate(Date.now(), 3);

    beforeAll(async () => {
      ensureBuilt();
      a = await startServeCli(['--demo', '--db', db, '--port', '0', '--admin-key', KEY], { timeoutMs: 60_000 });
      b = await startServeCli(['--demo', '--db', db, '--port', '0', '--admin-key', KEY], { timeoutMs: 60_000 });
    }, 120_000);
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await dropSchema(schema);
    }, 30_000);

    const slots = async (base: string, extra: Record<string, unknown> = {}) =>
      (
        await call(base, 'POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: date,
          end_date: date,
          limit: 500,
          ...extra,
        })
      ).body.slots as any[];

    test('the second process kept the stored definition rather than importing its own', () => {
      expect(b.stderr()).not.toContain('the database wins');
    });

    test('a price changed through one process is what the other answers next', async () => {
      expect((await call(b.url, 'GET', '/services/svc_haircut')).body.service.pricing.amount).not.toBe(4321);
      const edit = await call(a.url, 'PATCH', '/admin/services/svc_haircut', { pricing: { amount: 4321 } }, KEY);
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      expect((await call(b.url, 'GET', '/services/svc_haircut')).body.service.pricing.amount).toBe(4321);
    });

    test("a stylist's new hours change the other process's slots at once, as the editing process shows them", async () => {
      const before = await slots(b.url, { resource_id: 'res_stylist_ben' });
      expect(before.length).toBeGreaterThan(0);
      const schedule = Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          [{ opens: '14:00', closes: '16:00' }],
        ]),
      );
      const edit = await call(a.url, 'PATCH', '/admin/resources/res_stylist_ben', { schedule }, KEY);
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      const after = await slots(b.url, { resource_id: 'res_stylist_ben' });
      expect(after.length).toBeLessThan(before.length);
      expect(after.every((s) => /T1[45]:/.test(s.start))).toBe(true);
      expect(after).toEqual(await slots(a.url, { resource_id: 'res_stylist_ben' }));
    });

    test('a service created through the other process is listed and bookable here', async () => {
      const svc = (await call(b.url, 'GET', '/services/svc_color_consult')).body.service;
      expect(svc).toBeDefined();
      const created = await call(
        b.url,
        'POST',
        '/admin/services',
        {
          id: 'svc_fringe',
          name: 'Fringe trim',
          type: 'appointment',
          duration: { fixed: 'PT15M' },
          pricing: { model: 'fixed', amount: 1500, currency: svc.pricing.currency },
          channel: { type: 'at_business_location' },
          policies: {
            cancellation: { allowed: true },
            rescheduling: { allowed: true },
            booking_window: { min_advance: 'PT1H', max_advance: 'P30D', slot_interval: 'PT15M' },
            confirmation_mode: 'auto',
            requires_payment: true,
            payment_timing: 'at_service',
          },
          requirements: [{ type: 'staff', resource_ids: ['res_stylist_ava'] }],
          location_ids: ['loc_downtown'],
        },
        KEY,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await call(a.url, 'GET', '/services/svc_fringe')).body.service.name).toBe('Fringe trim');
      const q = await call(a.url, 'POST', '/availability/query', {
        service_id: 'svc_fringe',
        start_date: date,
        end_date: date,
      });
      expect(q.body.slots.length).toBeGreaterThan(0);
    });
  });
}
