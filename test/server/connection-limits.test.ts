/**
 * The HTTP listener bounds what a client can hold (slow-loris and connection-flood defence): a
 * request whose headers never finish is cut at the header deadline, a body that trickles at the
 * request deadline, an idle keep-alive connection at its timeout, and at the cap a newcomer takes
 * the place of the connection idle the longest (test/server/connection-flood.test.ts has the floods). Small limits are configured here so the test runs in seconds on loopback.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import {
  DEFAULT_CONNECTION_LIMITS,
  createUspServer,
  type ConnectionLimits,
  type UspServer,
} from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

async function start(connections: Partial<ConnectionLimits>): Promise<{ host: string; port: number; url: string }> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    connections,
  });
  const url = await server.listen(0, '127.0.0.1');
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port), url };
}

/** A raw socket that records when the server closed it. */
function open(port: number, from?: string): Promise<{ socket: Socket; closed: Promise<number>; data: () => string }> {
  return new Promise((resolve, reject) => {
    const opened = Date.now();
    let received = '';
    const socket = connect({ port, host: '127.0.0.1', ...(from ? { localAddress: from } : {}) });
    sockets.push(socket);
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - opened)));
    socket.on('data', (c) => (received += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed, data: () => received }));
    socket.once('error', reject);
  });
}

/** Resolves with the ms until close, or -1 if the socket is still open after `ms`. */
const closedWithin = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), ms))]);

describe('slow clients are cut at their deadlines', () => {
  test('20 connections trickling one header line every 100 ms are all closed soon after the 400 ms header deadline; the server still answers', async () => {
    const { port, url } = await start({ headersTimeoutMs: 400, requestTimeoutMs: 2_000 });
    const conns = await Promise.all(Array.from({ length: 20 }, () => open(port)));
    for (const c of conns) {
      c.socket.write('GET /.well-known/usp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      timers.push(setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 100));
    }
    const times = await Promise.all(conns.map((c) => closedWithin(c.closed, 3_000)));
    expect(times.every((t) => t >= 0)).toBe(true);
    expect(Math.max(...times)).toBeLessThan(3_000);
    const ok = await fetch(`${url}/.well-known/usp`);
    expect(ok.status).toBe(200);
  });

  test('a request whose body trickles is closed at the 600 ms request deadline', async () => {
    const { port } = await start({ headersTimeoutMs: 500, requestTimeoutMs: 600 });
    const c = await open(port);
    c.socket.write(
      'POST /services/list HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    timers.push(setInterval(() => c.socket.writable && c.socket.write(' '), 100));
    expect(await closedWithin(c.closed, 3_000)).toBeGreaterThanOrEqual(0);
  });

  test('an idle keep-alive connection is closed after the 200 ms keep-alive timeout', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 200 });
    const c = await open(port);
    c.socket.write('GET /.well-known/usp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const t = await closedWithin(c.closed, 2_000);
    expect(c.data()).toMatch(/^HTTP\/1\.1 200/);
    expect(t).toBeGreaterThanOrEqual(0);
  });
});

describe('the connection cap', () => {
  test('with 5 allowed and 5 idle, a 6th connection takes the place of the one idle the longest; the other 4 stay open', async () => {
    const { port } = await start({
      maxConnections: 5,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
      pressureIdleMs: 60_000,
    });
    const held: Array<Awaited<ReturnType<typeof open>>> = [];
    for (let i = 0; i < 5; i++) {
      held.push(await open(port));
      await new Promise((r) => setTimeout(r, 20));
    }
    // From another address: 127.0.0.1 holds its whole share (at most the cap).
    const extra = await open(port, '127.0.0.2');
    expect(await closedWithin(held[0].closed, 2_000)).toBeGreaterThanOrEqual(0);
    expect(held[0].data()).toBe('');
    for (const h of held.slice(1)) expect(h.socket.destroyed).toBe(false);
    extra.socket.write('GET /.well-known/usp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await closedWithin(extra.closed, 2_000);
    expect(extra.data()).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('the defaults are bounded', () => {
  test('every limit has a finite default well under the minutes Node allows', () => {
    expect(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(15_000);
    expect(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(60_000);
    expect(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(DEFAULT_CONNECTION_LIMITS.maxConnections).toBeGreaterThan(0);
    expect(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress).toBeLessThanOrEqual(
      DEFAULT_CONNECTION_LIMITS.maxConnections / 10,
    );
  });
});
