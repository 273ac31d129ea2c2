/**
 * Every address of 127.0.0.0/8 is this machine's loopback interface: `--host 127.0.0.2` is served
 * over plain HTTP like 127.0.0.1 (no TLS or proxy needed), and the MCP door accepts the Host
 * header that names it.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { isLoopbackHost } from '../../src/security/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { ensureBuilt } from '../support/build.js';
import { startServeCli } from '../support/cli.js';
import { demoBusiness } from '../support/server.js';

describe('--host 127.0.0.2 is loopback', () => {
  let server: UspServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test('the loopback names: localhost, all of 127.0.0.0/8 and ::1, and nothing else', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['128.0.0.1', '0.0.0.0', '::', '10.0.0.1', 'localhost.example', '127.0.0.1.example'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  test('a server listening on 127.0.0.2 serves plain HTTP there, REST and MCP alike', async () => {
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      security: { allowLoopbackProfiles: true },
    });
    const url = await server.listen(0, '127.0.0.2');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect((await fetch(`${url}/services/svc_haircut`)).status).toBe(200);
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
  });

  test('usp-server serve --host 127.0.0.2 starts without TLS or a proxy', async () => {
    ensureBuilt();
    const s = await startServeCli(['--demo', '--host', '127.0.0.2', '--port', '0', '--db', ':memory:'], {
      timeoutMs: 20_000,
    });
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect((await fetch(`${s.url}/.well-known/usp`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  }, 30_000);
});
