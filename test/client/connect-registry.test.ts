/**
 * `usp-server connect --registry URL`: a registry (`usp-server registry`, its own process) lists a
 * business (`usp-server serve --register-with`); the assistant (the official MCP SDK client over
 * stdio) searches across businesses with connect's registry tool, adds the business a search
 * returned with registry__use_business (its tools join the session, tools/list_changed is sent)
 * and books there. A profile URL no search returned is refused, and a business the registry names on
 * loopback over http is not contacted unless connect runs with --allow-loopback-profiles (the
 * outbound rules for URLs somebody else chose).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { BIN, inheritedEnv, startServeCli, type RunningCli } from '../support/cli.js';
import { eventually, startRegistryCli, type RunningRegistry } from '../registry/processes.js';

const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

let registry: RunningRegistry;
let business: RunningCli;
let dir: string;
const clients: Client[] = [];

async function connectClient(extra: string[]): Promise<{ client: Client; changed: number[] }> {
  const client = new Client({ name: 'connect-registry-test', version: '1' });
  const changed: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.push(Date.now()));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        BIN,
        'connect',
        '--registry',
        registry.url,
        '--identity',
        join(dir, `identity-${clients.length}.json`),
        ...extra,
      ],
      env: inheritedEnv(),
      stderr: 'ignore',
    }),
  );
  clients.push(client);
  return { client, changed };
}

/** The business's day `n` days after its own today, in its time zone. */
async function businessDay(n: number): Promise<string> {
  const now = Date.parse((await fetch(`${business.url}/.well-known/usp`)).headers.get('date')!);
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(now + n * 86_400_000));
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'usp-connect-registry-'));
  registry = await startRegistryCli([
    '--port',
    '0',
    '--db',
    ':memory:',
    '--allow-loopback-profiles',
    '--no-rate-limit',
  ]);
  business = await startServeCli(
    ['--demo', '--port', '0', '--db', ':memory:', '--register-with', registry.url, '--allow-loopback-profiles'],
    { timeoutMs: 20_000 },
  );
  await eventually(
    async () => {
      const res = await fetch(`${registry.url}/registry/search_services`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"query":"haircut"}',
      });
      return ((await res.json()) as any).services?.length > 0;
    },
    20_000,
    'the business is indexed',
  );
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await business?.stop();
  await registry?.stop();
});

describe('usp-server connect with a registry', () => {
  it('searches across businesses, adds one a search found, and books there', async () => {
    const { client, changed } = await connectClient(['--allow-loopback-profiles']);
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toEqual(['registry__search_services', 'registry__search_businesses', 'registry__use_business']);

    const made: any = await client.callTool({
      name: 'registry__use_business',
      arguments: { profile_url: `${business.url}/.well-known/usp` },
    });
    expect(made.isError).toBe(true);
    expect(made.content[0].text).toContain('search first');

    const found: any = await client.callTool({ name: 'registry__search_services', arguments: { query: 'haircut' } });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    const hit = found.structuredContent.services.find((s: any) => s.service_id === 'svc_haircut');
    expect(hit.business.profile_url).toBe(`${business.url}/.well-known/usp`);

    const used: any = await client.callTool({
      name: 'registry__use_business',
      arguments: { profile_url: hit.business.profile_url },
    });
    expect(used.isError, JSON.stringify(used.content)).toBeFalsy();
    expect(used.structuredContent.business).toBe('Maple & Pine Salon and Studio');
    await eventually(async () => changed.length > 0, 5_000, 'tools/list_changed');
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name.endsWith('__usp_bookings_create'))!;
    expect(create.description).toMatch(/^At Maple & Pine Salon and Studio/);
    const prefix = create.name.slice(0, -'usp_bookings_create'.length);

    let slot: any;
    for (let d = 2; !slot && d < 16; d++) {
      const date = await businessDay(d);
      const q: any = await client.callTool({
        name: `${prefix}usp_availability_query`,
        arguments: { service_id: 'svc_haircut', start_date: date, end_date: date },
      });
      slot = q.structuredContent?.slots?.[0];
    }
    const booked: any = await client.callTool({
      name: create.name,
      arguments: { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
    });
    expect(booked.isError, JSON.stringify(booked.content)).toBeFalsy();
    expect(booked.structuredContent.booking.status).toBe('confirmed');
  }, 60_000);

  it('without --allow-loopback-profiles, a business the registry names on loopback over http is not contacted', async () => {
    const { client } = await connectClient([]);
    const found: any = await client.callTool({ name: 'registry__search_businesses', arguments: { query: 'maple' } });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    const url = found.structuredContent.businesses[0].profile_url;
    const used: any = await client.callTool({ name: 'registry__use_business', arguments: { profile_url: url } });
    expect(used.isError).toBe(true);
    expect(used.content[0].text).toMatch(/address_refused: .*must use https/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'registry__search_services',
      'registry__search_businesses',
      'registry__use_business',
    ]);
  }, 60_000);
});
