/**
 * A fault a door lets escape is answered `server_error` in the door's format and logged through the
 * server's logger (one structured line: the door, the path, the fault), never written to the console.
 * The doors are the real REST and MCP apps, reached by HTTP requests.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createMcpHttp, SessionHub } from '../../src/bindings/mcp/index.js';
import { createRestApp } from '../../src/bindings/rest/index.js';
import type { Pipeline } from '../../src/operations/index.js';
import { recorder } from '../support/log-recorder.js';

const explode = (what: string) => () => {
  throw new Error(`${what} exploded`);
};

describe('a fault a door lets escape goes to the logger, not the console', () => {
  afterEach(() => vi.restoreAllMocks());

  test('REST: a 500 problem document, and one error line naming the path and the fault', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const { log, lines } = recorder();
    const rest = createRestApp({
      pipeline: {} as Pipeline,
      scopeOf: () => ({}) as never,
      profile: explode('profile'),
      openapi: () => ({}),
      log,
    });
    const res = await rest.fetch(new Request('http://127.0.0.1/.well-known/usp'));
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe('server_error');
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'unexpected REST failure',
        fields: { path: '/.well-known/usp', error: expect.stringContaining('profile exploded') },
      },
    ]);
    expect(consoleError).not.toHaveBeenCalled();
  });

  test('MCP over HTTP: a 500 JSON-RPC error, and one error line naming the path and the fault', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const { log, lines } = recorder();
    const door = createMcpHttp({ pipeline: {} as Pipeline }, new SessionHub((p) => `usp://webhooks/${p}`), {
      clientAddress: explode('address'),
      log,
    });
    try {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const res = await door.app.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(initialize),
        }),
      );
      expect(res.status).toBe(500);
      expect(((await res.json()) as { error: { data: { code: string } } }).error.data.code).toBe('server_error');
      expect(lines).toEqual([
        {
          level: 'error',
          msg: 'unexpected MCP HTTP failure',
          fields: { path: '/mcp', error: expect.stringContaining('address exploded') },
        },
      ]);
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      await door.close();
    }
  });
});
