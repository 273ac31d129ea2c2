/**
 * The operator's view of a real `usp-server serve` process (built CLI, so `npm run build` first):
 * its log lines (structured, one per call, no buyer personal data even at debug level) and its
 * shutdown on SIGTERM in the middle of a burst of bookings.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServeCli } from '../support/cli.js';
import { connectMcp, meta, nyDate } from '../mcp/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-observe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLATFORM = 'https://platform.example/profiles/agent.json';

async function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'USP-Agent': `profile="${PLATFORM}"`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

async function slots(
  url: string,
  serviceId: string,
  days: number[],
): Promise<Array<{ id: string; start: string; resources?: Array<{ id: string }> }>> {
  const out = [];
  for (const d of days) {
    const date = nyDate(Date.now(), d);
    const r = await post(url, '/availability/query', {
      service_id: serviceId,
      start_date: date,
      end_date: date,
      limit: 500,
    });
    expect(r.status).toBe(200);
    out.push(...r.body.slots);
  }
  return out;
}

describe('logs: one structured line per call, and no buyer personal data at any level', () => {
  it('bookings through REST and MCP with names, e-mails and phones leave none of them in a debug-level log', async () => {
    const s = await startServeCli([
      '--demo',
      '--db',
      join(dir, 'pii.db'),
      '--port',
      '0',
      '--log-level',
      'debug',
      '--no-rate-limit',
    ]);
    const buyers = [
      {
        first_name: 'Zephyrine',
        last_name: 'Quillbottom',
        email: 'zephyrine.quillbottom@example.org',
        phone_number: '+1 212 555 0187',
      },
      {
        first_name: 'Barnabus',
        last_name: 'Thistlewood',
        email: 'b.thistlewood@example.net',
        phone_number: '+44 20 7946 0958',
      },
      {
        first_name: 'Oriella',
        last_name: 'Vantongeren',
        email: 'oriella@mail.example.com',
        phone_number: '212-555-0142',
      },
    ];
    try {
      // Slots on different days never overlap.
      const free = [
        (await slots(s.url, 'svc_haircut', [3]))[0],
        (await slots(s.url, 'svc_haircut', [4]))[0],
        (await slots(s.url, 'svc_haircut', [5]))[0],
      ];
      // REST: a booking with every personal field, its free-text notes quoting the e-mail and phone.
      const rest = await post(
        s.url,
        '/bookings',
        {
          service_id: 'svc_haircut',
          slot_id: free[0].id,
          buyer: buyers[0],
          notes: `reach me at ${buyers[0].email} or ${buyers[0].phone_number}`,
        },
        { 'USP-Correlation-Id': 'corr-rest-1' },
      );
      expect(rest.status).toBe(201);
      // A refused one (invalid e-mail) whose error message may quote the input.
      const bad = await post(s.url, '/bookings', {
        service_id: 'svc_haircut',
        slot_id: free[1].id,
        buyer: { ...buyers[2], email: `${buyers[2].first_name} <${buyers[2].email}>` },
      });
      expect(bad.status).toBe(400);
      // MCP over HTTP.
      const mcp = await connectMcp('v1', 'http', s.url);
      try {
        const r = await mcp.call('usp_bookings_create', {
          ...meta(PLATFORM),
          service_id: 'svc_haircut',
          slot_id: free[2].id,
          buyer: buyers[1],
          notes: `text ${buyers[1].phone_number}`,
        });
        expect(r.structuredContent.booking?.status, JSON.stringify(r.structuredContent)).toBe('confirmed');
      } finally {
        await mcp.close();
      }
    } finally {
      await s.stop();
    }
    const log = s.stderr();
    const lines = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    // The debug lines are there (the test would prove nothing at info level).
    expect(
      lines.some((l) => l.level === 'debug' && l.msg === 'call received' && l.operation === 'create_booking'),
    ).toBe(true);
    for (const b of buyers) {
      for (const value of [b.first_name, b.last_name, b.email, b.phone_number, b.email.split('@')[0]]) {
        expect(log, `${value} appears in the log`).not.toContain(value);
      }
    }
    // One line per call with the correlation id, operation, door, principal, outcome and duration.
    const calls = lines.filter((l) => l.msg === 'call');
    const restCall = calls.find((l) => l.correlation_id === 'corr-rest-1');
    expect(restCall).toMatchObject({
      level: 'info',
      operation: 'create_booking',
      door: 'rest',
      outcome: 'ok',
      principal: expect.any(String),
    });
    expect(typeof restCall!.duration_ms).toBe('number');
    expect(calls.find((l) => l.door === 'mcp' && l.operation === 'create_booking')).toMatchObject({
      outcome: 'ok',
      correlation_id: expect.any(String),
    });
    expect(calls.find((l) => l.door === 'rest' && l.outcome === 'invalid_request')).toBeDefined();
  }, 60_000);
});

/** Slots that never overlap: per stylist, starts at least an hour apart (every booking in the burst can succeed). */
function spread<T extends { start: string; resources?: Array<{ id: string }> }>(all: T[]): T[] {
  const last = new Map<string, number>();
  return all.filter((x) => {
    const res = x.resources?.[0]?.id ?? '';
    const start = Date.parse(x.start);
    if (start - (last.get(res) ?? -Infinity) < 3600_000) return false;
    last.set(res, start);
    return true;
  });
}

describe('SIGTERM during a burst of bookings loses none', () => {
  it('every booking answered 201 is stored, none is answered 500, no delivery lease is left held, and the process exits 0 within the bound', async () => {
    const db = join(dir, 'burst.db');
    const s = await startServeCli(['--demo', '--db', db, '--port', '0', '--no-rate-limit', '--shutdown-timeout', '5']);
    const free = spread(await slots(s.url, 'svc_haircut', [4, 5, 6, 7, 8])).slice(0, 60);
    expect(free.length).toBeGreaterThanOrEqual(30);
    const exit = new Promise<{ code: number | null; at: number }>((r) =>
      s.child.once('exit', (code) => r({ code, at: Date.now() })),
    );
    let answered = 0;
    let signalled = 0;
    let afterSignal = 0;
    const answers = await Promise.all(
      free.map(async (slot, i) => {
        // Spread the burst a little so that it is still arriving when the signal lands.
        await new Promise((r) => setTimeout(r, i * 4));
        try {
          const r = await post(s.url, '/bookings', {
            service_id: 'svc_haircut',
            slot_id: slot.id,
            buyer: { first_name: 'Burst', last_name: `N${i}`, email: `burst${i}@example.com` },
          });
          if (signalled) afterSignal++;
          if (++answered === 5) {
            signalled = Date.now();
            s.child.kill('SIGTERM');
          }
          return r;
        } catch {
          // Refused at the door (the listener closed): never answered, so never promised.
          return { status: 'refused' as const, body: undefined };
        }
      }),
    );
    const { code, at } = await exit;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(5000 + 2000);
    const statuses = answers.map((a) => a.status);
    expect(statuses).not.toContain(500);
    expect(statuses.every((x) => x === 201 || x === 200 || x === 503 || x === 'refused')).toBe(true);
    const promised = answers.filter((a) => a.status === 201).map((a) => a.body.booking.id as string);
    expect(promised.length).toBeGreaterThanOrEqual(5);
    // How many calls were still in flight when the signal landed depends on timing (on a fast run,
    // none): what holds either way is checked above and below (no 500, every 201 stored, exit 0).
    void afterSignal;

    const conn = new Database(db, { readonly: true });
    try {
      const stored = new Set((conn.prepare('SELECT id FROM bookings').all() as Array<{ id: string }>).map((r) => r.id));
      for (const id of promised) expect(stored.has(id), `booking ${id} was answered 201 but is not stored`).toBe(true);
      const held = conn
        .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND lease_until_ms > ?`)
        .get(Date.now()) as { n: number };
      expect(held.n).toBe(0);
    } finally {
      conn.close();
    }
    expect(s.stderr()).toContain('"msg":"shutting down"');
  }, 60_000);
});
