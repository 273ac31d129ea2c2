/**
 * Issue 40 item 3: over stdio each line was parsed three times (the door's screen parsed it, then
 * checked it with the SDK's `deserializeMessage`, which parses it again, then the SDK's transport
 * parsed it a third time). The screen now hands the SDK the message it parsed: one JSON.parse per
 * line. Invalid lines are still answered here (-32700, -32600 with the id), and a line split across
 * chunks, or ending in CRLF, still reads as one message.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { serveMcpStdio } from '../../src/bindings/mcp/index.js';
import { PLATFORM, startTestServer } from '../support/server.js';

let t: Awaited<ReturnType<typeof startTestServer>>;
let stdin: PassThrough;
let stdout: PassThrough;
let close: () => Promise<void>;
const replies: Array<Record<string, any>> = [];
let waiting: Array<() => void> = [];

beforeAll(async () => {
  t = await startTestServer();
  stdin = new PassThrough();
  stdout = new PassThrough();
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      replies.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
    }
    for (const w of waiting) w();
    waiting = [];
  });
  const handle = await serveMcpStdio({ pipeline: t.server.pipeline, scope: t.server.scope }, t.server.hub, {
    stdin,
    stdout,
  });
  close = () => handle.close();
  await send(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'parse-once', version: '1' } },
    })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
  );
  await reply(0);
});

afterAll(async () => {
  await close?.();
  await t?.close();
});

async function send(text: string): Promise<void> {
  stdin.write(text);
}

async function reply(id: number | null, skip = 0): Promise<Record<string, any>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = replies.filter((r) => r.id === id)[skip];
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no reply ${id}`);
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      setTimeout(resolve, 50);
    });
  }
}

test('a tools/call line is parsed once', async () => {
  const line = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'usp_services_get',
      arguments: { service_id: 'svc_haircut', _meta: { usp: { profile: PLATFORM } } },
    },
  });
  const parse = vi.spyOn(JSON, 'parse');
  try {
    await send(`${line}\n`);
    const answer = await reply(1);
    expect(answer.result?.structuredContent?.service?.id ?? answer.result?.structuredContent?.id).toBeDefined();
    expect(parse.mock.calls.filter(([text]) => text === line)).toHaveLength(1);
  } finally {
    parse.mockRestore();
  }
});

test('invalid lines are still answered, and split or CRLF lines still read as one message', async () => {
  await send('{not json\n');
  expect((await reply(null)).error).toMatchObject({ code: -32700, data: { code: 'parse_error' } });
  await send(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: 3 })}\n`);
  expect((await reply(7)).error).toMatchObject({ code: -32600 });
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' });
  await send(ping.slice(0, 10));
  await send(`${ping.slice(10)}\r\n\n   \n`);
  expect(await reply(8)).toMatchObject({ result: {} });
});
