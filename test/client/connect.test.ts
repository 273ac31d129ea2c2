/**
 * `usp-server connect` as a desktop assistant meets it: the official MCP SDK client starts it over
 * stdio in front of two businesses, each its own `usp-server serve --require-auth` process (the
 * demo, and a second business of another name); the tools name both businesses, a haircut is booked
 * at each through the one session (proved with the platform key connect keeps in its identity file,
 * made readable by its owner only), and the businesses' webhooks become events in the resource
 * usp-connect://events, each named with its business.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { BIN, REPO_ROOT, inheritedEnv, runCli, startServeCli, type RunningCli } from '../support/cli.js';

const ZONE = 'America/New_York';
const dayAhead = (n: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(Date.now() + n * 86_400_000),
  );
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

let maple: RunningCli;
let harbor: RunningCli;
let client: Client;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'usp-connect-'));
  const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'src/server/demo-business.json'), 'utf8'));
  demo.business = { ...demo.business, id: 'biz_harbor', name: 'Harbor Barbers' };
  writeFileSync(join(dir, 'harbor.json'), JSON.stringify(demo));
  const common = ['--require-auth', '--allow-loopback-profiles', '--db', ':memory:', '--port', '0'];
  [maple, harbor] = await Promise.all([
    startServeCli(['--demo', ...common]),
    startServeCli(['--config', join(dir, 'harbor.json'), ...common]),
  ]);
  client = new Client({ name: 'connect-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'connect', maple.url, harbor.url, '--identity', join(dir, 'identity.json')],
      env: inheritedEnv(),
      stderr: 'ignore',
    }),
  );
}, 120_000);
afterAll(async () => {
  await client?.close();
  await maple?.stop();
  await harbor?.stop();
});

describe('usp-server connect fronts two businesses in one MCP session', () => {
  it('lists each business tools under its name, books at each, and relays their webhooks as events', async () => {
    const { tools } = await client.listTools();
    const create = tools.filter((t) => t.name.endsWith('__usp_bookings_create'));
    expect(create.map((t) => t.description?.slice(0, 20)).sort()).toEqual([
      'At Harbor Barbers (h',
      'At Maple & Pine Salo',
    ]);
    expect(statSync(join(dir, 'identity.json')).mode & 0o777).toBe(0o600);

    const booked: string[] = [];
    for (const tool of create) {
      const prefix = tool.name.slice(0, -'usp_bookings_create'.length);
      let slot: any;
      for (let d = 2; !slot && d < 16; d++) {
        const q: any = await client.callTool({
          name: `${prefix}usp_availability_query`,
          arguments: { service_id: 'svc_haircut', start_date: dayAhead(d), end_date: dayAhead(d) },
        });
        slot = q.structuredContent?.slots?.[0];
      }
      const made: any = await client.callTool({
        name: tool.name,
        arguments: { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
      });
      expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
      expect(made.structuredContent.booking.status).toBe('confirmed');
      expect((made.content[0] as { text: string }).text.length).toBeGreaterThan(0);
      booked.push(`${made.structuredContent.business}:${made.structuredContent.booking.id}`);
    }

    let events: any[] = [];
    for (let i = 0; i < 100 && events.length < 2; i++) {
      const r = await client.readResource({ uri: 'usp-connect://events' });
      events = JSON.parse((r.contents[0] as { text: string }).text).events.filter(
        (e: any) => e.event === 'booking.confirmed',
      );
      if (events.length < 2) await new Promise((res) => setTimeout(res, 100));
    }
    expect(events.map((e) => `${e.business}:${e.booking_id}`).sort()).toEqual(booked.sort());
  }, 60_000);
});

describe('usp-server connect used wrongly', () => {
  it('without a business URL, or with an argument that is not one, it exits 2 saying what it wants', async () => {
    const none = await runCli(['connect']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usp-server connect URL');
    const bad = await runCli(['connect', 'salon.example']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"salon.example"');
  });
});
