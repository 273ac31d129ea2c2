/**
 * Over stdio the person who launched the process is trusted to name the platform (spec 10.1.6:
 * every privileged request binds to a fetchable profile): `usp-server mcp --platform-profile URL`
 * fills in the profile of a call that names none, and without the flag the business's profile for
 * assistants without one is used, so a model never invents `_meta.usp.profile`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, inheritedEnv, runCli } from '../support/cli.js';
import { day } from '../support/server.js';
import { TEST_NOW, clockEnv } from '../support/time.js';

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(extra: string[]): Promise<Client> {
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  // The child runs on the test's clock, so `day(n)` (from TEST_NOW) names the same days for both.
  const env = inheritedEnv(clockEnv(TEST_NOW));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--demo', '--db', ':memory:', ...extra],
      env,
      stderr: 'ignore',
    }),
  );
  open.push(client);
  return client;
}

async function bookWithoutMeta(client: Client): Promise<string> {
  const q: any = await client.callTool({
    name: 'usp_availability_query',
    arguments: { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) },
  });
  const made: any = await client.callTool({
    name: 'usp_bookings_create',
    arguments: {
      service_id: 'svc_haircut',
      slot_id: q.structuredContent.slots[0].id,
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    },
  });
  expect(made.isError).toBeFalsy();
  return made.structuredContent.booking.id;
}

const getAs = async (client: Client, id: string, profile: string): Promise<any> =>
  client.callTool({ name: 'usp_bookings_get', arguments: { booking_id: id, _meta: { usp: { profile } } } });

describe('a stdio call without _meta.usp.profile acts under the profile the launcher chose', () => {
  it('--platform-profile URL: the booking belongs to that profile and to no other', async () => {
    const client = await connect(['--platform-profile', 'https://assistant.example/usp-profile.json']);
    const id = await bookWithoutMeta(client);
    expect((await getAs(client, id, 'https://assistant.example/usp-profile.json')).structuredContent.booking.id).toBe(
      id,
    );
    // Another profile's read is the 404 of the MCP binding: -32602 booking_not_found (spec-next 9.4.3).
    const other = await getAs(client, id, 'https://someone-else.example/profile.json').catch((e) => e);
    expect([other.code, other.data?.code]).toEqual([-32602, 'booking_not_found']);
  }, 30_000);

  it('without the flag, the business profile for generic assistants is used', async () => {
    const client = await connect([]);
    const id = await bookWithoutMeta(client);
    // The default public URL of a business that names none (the address serve listens on by default).
    const generic = 'http://localhost:8787/platforms/generic-mcp-host.json';
    expect((await getAs(client, id, generic)).structuredContent.booking.id).toBe(id);
  }, 30_000);

  it('a --platform-profile that is not an acceptable URL stops the command with exit 2', async () => {
    const r = await runCli(['mcp', '--demo', '--db', ':memory:', '--platform-profile', 'ftp://x.example/p.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--platform-profile');
  });
});
