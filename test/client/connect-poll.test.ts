/**
 * `usp-server connect` where webhooks cannot arrive: the business (a `usp-server serve` process
 * without `--allow-loopback-profiles`) refuses to deliver to connect's loopback webhook port, so
 * connect, told to poll (`--poll-seconds 1`), reads again what it booked there. The business
 * cancels the booking (as itself, with its admin key): the cancellation reaches the assistant (the
 * official MCP SDK client over stdio) as a `booking.canceled` event marked `via: 'poll'` in the
 * resource usp-connect://events, with a notification that the resource changed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsPolling } from '../../src/client/connect-poll.js';
import { ensureBuilt } from '../support/build.js';
import { BIN, inheritedEnv, startServeCli, type RunningCli } from '../support/cli.js';

const ADMIN_KEY = 'connect-poll-admin-key-0123456789';
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

let business: RunningCli;
let client: Client;
let stderr = '';
const updated: string[] = [];

/** The business's day `n` days after its own today (its clock is what counts), in its time zone. */
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
  const dir = mkdtempSync(join(tmpdir(), 'usp-connect-poll-'));
  business = await startServeCli(['--demo', '--db', ':memory:', '--port', '0', '--admin-key', ADMIN_KEY]);
  client = new Client({ name: 'connect-poll-test', version: '1' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'connect', business.url, '--identity', join(dir, 'identity.json'), '--poll-seconds', '1'],
    env: inheritedEnv(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await business?.stop();
});

async function events(): Promise<any[]> {
  const r = await client.readResource({ uri: 'usp-connect://events' });
  return JSON.parse((r.contents[0] as { text: string }).text).events;
}

describe('usp-server connect polls a business that cannot reach its webhook port', () => {
  it("tells the business's cancellation of a booking made through it, as a polled event", async () => {
    const { tools } = await client.listTools();
    const prefix = tools
      .find((t) => t.name.endsWith('__usp_bookings_create'))!
      .name.slice(0, -'usp_bookings_create'.length);
    let slot: any;
    for (let d = 2; !slot && d < 16; d++) {
      const date = await businessDay(d);
      const q: any = await client.callTool({
        name: `${prefix}usp_availability_query`,
        arguments: { service_id: 'svc_haircut', start_date: date, end_date: date },
      });
      slot = q.structuredContent?.slots?.[0];
    }
    const made: any = await client.callTool({
      name: `${prefix}usp_bookings_create`,
      arguments: { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const id = made.structuredContent.booking.id;
    expect(stderr).toContain('by polling every 1 s');

    const cancel = await fetch(`${business.url}/bookings/${id}/cancel`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${ADMIN_KEY}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': `cancel-${id}`,
      },
      body: JSON.stringify({ reason: 'The stylist is ill.' }),
    });
    expect(cancel.status, await cancel.clone().text()).toBe(200);

    let canceled: any[] = [];
    for (let i = 0; i < 100 && canceled.length === 0; i++) {
      canceled = (await events()).filter((e) => e.event === 'booking.canceled' && e.booking_id === id);
      if (canceled.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(canceled, `${stderr}\n${JSON.stringify(await events())}`).toHaveLength(1);
    expect(canceled[0]).toMatchObject({
      via: 'poll',
      business: 'Maple & Pine Salon and Studio',
      data: { id, status: 'canceled' },
    });
    expect(updated).toContain('usp-connect://events');
    // Nothing came by webhook: the business could not deliver to loopback.
    expect((await events()).filter((e) => e.via === 'webhook')).toEqual([]);

    // Told once: the next rounds see a final booking and read it no more.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await events()).filter((e) => e.booking_id === id)).toHaveLength(1);
  }, 60_000);

  it('polls by default only a business that cannot reach the local port', () => {
    expect(needsPolling('https://salon.example', undefined)).toBe(true);
    expect(needsPolling('https://salon.example', 'https://tunnel.example')).toBe(false);
    expect(needsPolling('http://127.0.0.1:8787', undefined)).toBe(false);
    expect(needsPolling('http://localhost:8787', undefined)).toBe(false);
    expect(needsPolling('http://[::1]:8787', undefined)).toBe(false);
  });
});
