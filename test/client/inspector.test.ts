/**
 * The official MCP Inspector CLI (`@modelcontextprotocol/inspector-cli` 1.0.3, `--cli` mode) over
 * stdio to `usp-server connect`, in front of two businesses, each its own `usp-server serve`
 * process (the demo with `--require-auth`, and a second business of another name): its
 * `tools/list` names both, and at each a slot is held, booked on that hold and read back, every
 * step one Inspector run (a new connect process each time, as a person's assistant starts one per
 * session). The dates come from the businesses' own clock (the `Date` of their answer): they run on
 * the real clock, this file too, but a child is what decides "today".
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { BIN, REPO_ROOT, inheritedEnv, startServeCli, type RunningCli } from '../support/cli.js';

// The Inspector reads its own package.json through `../package.json` checked against the working
// directory (a quirk of v1): it runs from its build directory, which writes nothing there.
const INSPECTOR_DIR = dirname(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js'),
);
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

let maple: RunningCli;
let harbor: RunningCli;
let dir: string;

/** One Inspector CLI run against `usp-server connect` in front of both businesses; its JSON output. */
function inspect(...method: string[]): Promise<any> {
  const args = [
    'cli.js',
    '--cli',
    process.execPath,
    BIN,
    'connect',
    maple.url,
    harbor.url,
    '--identity',
    join(dir, 'identity.json'),
    ...method,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: INSPECTOR_DIR, env: inheritedEnv(), timeout: 30_000, maxBuffer: 8 << 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`inspector ${method.join(' ')} failed: ${err.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`inspector ${method.join(' ')} printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
  });
}

const call = (tool: string, args: Record<string, unknown>) =>
  inspect(
    '--method',
    'tools/call',
    '--tool-name',
    tool,
    '--tool-arg',
    ...Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`),
  );

/** The business's day `n` days after its own today, in its time zone. */
async function businessDay(url: string, n: number): Promise<string> {
  const res = await fetch(`${url}/.well-known/usp`);
  const now = Date.parse(res.headers.get('date')!);
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(now + n * 86_400_000));
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'usp-inspector-'));
  const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
  demo.business = { ...demo.business, id: 'biz_harbor', name: 'Harbor Barbers' };
  writeFileSync(join(dir, 'harbor.json'), JSON.stringify(demo));
  const common = ['--allow-loopback-profiles', '--db', ':memory:', '--port', '0'];
  const slow = { timeoutMs: 60_000 }; // two servers starting at once on a loaded 2-core machine
  // Both settle before either is kept, so a server that started is stopped in afterAll even when the other did not start.
  const [m, h] = await Promise.allSettled([
    startServeCli(['--demo', '--require-auth', ...common], slow),
    startServeCli(['--config', join(dir, 'harbor.json'), ...common], slow),
  ]);
  if (m.status === 'fulfilled') maple = m.value;
  if (h.status === 'fulfilled') harbor = h.value;
  for (const r of [m, h]) if (r.status === 'rejected') throw r.reason;
}, 120_000);
afterAll(async () => {
  await maple?.stop();
  await harbor?.stop();
});

describe('the official MCP Inspector CLI over stdio to usp-server connect with two businesses', () => {
  it('lists tools naming both businesses, and holds, books and reads back a booking at each', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    const holds = tools.filter((t: any) => t.name.endsWith('__usp_availability_hold'));
    expect(holds.map((t: any) => t.description.split(' (')[0]).sort()).toEqual([
      'At Harbor Barbers',
      'At Maple & Pine Salon and Studio',
    ]);

    for (const [hold, url] of [
      [holds.find((t: any) => t.description.includes('Maple')), maple.url],
      [holds.find((t: any) => t.description.includes('Harbor')), harbor.url],
    ] as const) {
      const prefix = hold.name.slice(0, -'usp_availability_hold'.length);
      let slot: any;
      for (let d = 2; !slot && d < 16; d++) {
        const date = await businessDay(url, d);
        const q = await call(`${prefix}usp_availability_query`, {
          service_id: 'svc_haircut',
          start_date: date,
          end_date: date,
        });
        slot = q.structuredContent?.slots?.[0];
      }
      expect(slot, `a haircut slot at ${url}`).toBeDefined();

      const held = await call(hold.name, { service_id: 'svc_haircut', slot_id: slot.id });
      expect(held.isError, JSON.stringify(held.content)).toBeFalsy();
      expect(held.structuredContent.hold.status).toBe('active');

      const made = await call(`${prefix}usp_bookings_create`, {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        hold_id: held.structuredContent.hold.id,
        buyer: BUYER,
      });
      expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
      expect(made.structuredContent.booking.status).toBe('confirmed');

      const read = await call(`${prefix}usp_bookings_get`, { booking_id: made.structuredContent.booking.id });
      expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
      expect(read.structuredContent.business).toBe(hold.description.slice(3).split(' (')[0]);
      expect(read.structuredContent.booking).toMatchObject({
        id: made.structuredContent.booking.id,
        status: 'confirmed',
        slot: { id: slot.id },
      });
    }
  }, 120_000);
});
