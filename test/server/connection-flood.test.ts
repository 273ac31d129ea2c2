/**
 * One client cannot keep the connection cap full. Idle sockets re-opened as they are closed used to
 * hold every place under the cap, and 9 of 10 legitimate requests failed. Now one address holds at
 * most its share, idle sockets give way near the cap, and a newcomer at the cap takes the place of
 * the socket idle the longest. Every client here is a loopback source address (127.0.0.2, ...); the
 * floods are bounded in sockets and in time and stop by themselves.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type ConnectionLimits, type UspServer } from '../../src/server/compose.js';
import { requestFrom } from '../support/loopback.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
const floods: Array<() => void> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const stop of floods.splice(0)) stop();
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

async function start(connections: Partial<ConnectionLimits>): Promise<number> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    connections,
  });
  return Number(new URL(await server.listen(0, '127.0.0.1')).port);
}

function openFrom(from: string, port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(s);
    s.on('error', () => undefined);
    s.once('connect', () => resolve(s));
    s.once('close', () => resolve(s));
  });
}

/**
 * `count` idle sockets from `from` (they never send a byte), each re-opened 5 ms after the server
 * closes it, for at most `maxReopens` re-openings in all.
 */
async function flood(from: string, port: number, count: number, maxReopens = 3000): Promise<void> {
  let running = true;
  let reopens = 0;
  floods.push(() => (running = false));
  const keep = async (): Promise<void> => {
    const s = await openFrom(from, port);
    s.once('close', () => {
      if (running && reopens++ < maxReopens) setTimeout(() => void keep(), 5);
    });
  };
  await Promise.all(Array.from({ length: count }, () => keep()));
  // Let the first refusals and re-openings settle into the steady state.
  await new Promise((r) => setTimeout(r, 200));
}

/** Ten requests, one after another, each on a new connection from `from`: how many were answered 200. */
async function legitimate(from: string, port: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < 10; i++) {
    const r = await requestFrom(from, `http://127.0.0.1:${port}/.well-known/usp`).catch(() => ({ status: 0 }));
    if (r.status === 200) ok++;
  }
  return ok;
}

describe('one client cannot keep the global connection cap full', () => {
  test('one address flooding idle sockets holds only its own share: 9 of 10 requests from another address are answered', async () => {
    const port = await start({
      maxConnections: 50,
      maxConnectionsPerAddress: 10,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
    });
    await flood('127.0.0.2', port, 50);
    expect(await legitimate('127.0.0.3', port)).toBeGreaterThanOrEqual(9);
  }, 30_000);

  test('several addresses filling the cap with idle sockets give way: 9 of 10 requests from a newcomer are answered', async () => {
    const port = await start({
      maxConnections: 40,
      maxConnectionsPerAddress: 10,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
    });
    for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) await flood(from, port, 10);
    expect(await legitimate('127.0.0.9', port)).toBeGreaterThanOrEqual(9);
  }, 30_000);

  test('a connection beyond its address share is closed on arrival, while that address keeps the sockets it has', async () => {
    const port = await start({
      maxConnections: 50,
      maxConnectionsPerAddress: 3,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
    });
    const mine = await Promise.all([1, 2, 3].map(() => openFrom('127.0.0.2', port)));
    const extra = await openFrom('127.0.0.2', port);
    await new Promise<void>((r) => (extra.destroyed ? r() : extra.once('close', () => r())));
    await new Promise((r) => setTimeout(r, 100));
    for (const s of mine) expect(s.destroyed).toBe(false);
    expect((await requestFrom('127.0.0.3', `http://127.0.0.1:${port}/.well-known/usp`)).status).toBe(200);
  });

  test('at the cap with every socket busy answering a request, a newcomer is closed on arrival and the busy ones stay', async () => {
    const port = await start({
      maxConnections: 5,
      maxConnectionsPerAddress: 5,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
    });
    const busy = await Promise.all(Array.from({ length: 5 }, () => openFrom('127.0.0.2', port)));
    // A request whose body has not arrived yet keeps its socket busy.
    for (const s of busy)
      s.write(
        'POST /services/list HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
    await new Promise((r) => setTimeout(r, 200));
    const extra = await openFrom('127.0.0.3', port);
    await new Promise<void>((r) => (extra.destroyed ? r() : extra.once('close', () => r())));
    for (const s of busy) expect(s.destroyed).toBe(false);
  });
});
