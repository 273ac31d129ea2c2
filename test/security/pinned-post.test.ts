/**
 * The one outbound POST (webhooks and the registry's feed subscriptions): rules before any
 * connection, the connection pinned to the vetted address, the answer capped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundRefused, pinnedPost } from '../../src/security/index.js';
import { pinnedJsonPost } from '../../src/server/registry-feed-subscriber.js';

let server: Server | undefined;
let connections = 0;

async function answering(body: string, status = 200): Promise<number> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  connections = 0;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

const opts = { allowLoopback: true, timeoutMs: 2000, userAgent: 'test' };

describe('pinnedPost', () => {
  it('a name resolving to a special-use address is refused before any connection; so is plain http without the loopback flag', async () => {
    const port = await answering('{}');
    const lookup = async () => ['127.0.0.1'];
    await expect(
      pinnedPost(`https://platform.example:${port}/x`, {}, '{}', { ...opts, allowLoopback: false, lookup }),
    ).rejects.toThrow(/^refused: 127\.0\.0\.1 is a special-use address/);
    await expect(pinnedPost(`http://127.0.0.1:${port}/x`, {}, '{}', { ...opts, allowLoopback: false })).rejects.toThrow(
      /^refused: must use https/,
    );
    await expect(pinnedPost('https://user:pw@platform.example/x', {}, '{}', opts)).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(connections).toBe(0);
  });

  it('a failed lookup says dns, and nothing connects', async () => {
    const lookup = async () => {
      throw new Error('ENOTFOUND nowhere.example');
    };
    await expect(pinnedPost('https://nowhere.example/x', {}, '{}', { ...opts, lookup })).rejects.toThrow(
      /^dns: ENOTFOUND/,
    );
  });

  it('the connection goes to the vetted address whatever the name (pinned), and the answer is kept up to the cap', async () => {
    const port = await answering('{"ok":true}', 201);
    // With the loopback flag a loopback answer is allowed: the name is never resolved again by node.
    const lookup = async () => ['127.0.0.1'];
    const a = await pinnedPost(`http://localhost:${port}/x`, {}, '{}', { ...opts, lookup, maxAnswerBytes: 1024 });
    expect(a.status).toBe(201);
    expect(a.body.toString()).toBe('{"ok":true}');
    // Without a cap the answer is read and dropped.
    expect((await pinnedPost(`http://127.0.0.1:${port}/x`, {}, '{}', opts)).body.length).toBe(0);
  });

  it('an answer over the cap fails the call', async () => {
    const port = await answering(JSON.stringify({ pad: 'x'.repeat(100_000) }));
    await expect(
      pinnedPost(`http://127.0.0.1:${port}/x`, {}, '{}', { ...opts, maxAnswerBytes: 64 * 1024 }),
    ).rejects.toThrow(/answer too large/);
  });
});

describe("the registry's JSON POST", () => {
  it('answers the status and a JSON object, {} for anything else', async () => {
    const port = await answering('not json', 502);
    expect(await pinnedJsonPost(true)(`http://127.0.0.1:${port}/x`, {}, '{}')).toEqual({ status: 502, body: {} });
  });
});
