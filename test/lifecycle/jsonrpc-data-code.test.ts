/**
 * Every JSON-RPC error the MCP door sends carries `data.code` (spec-next 9.4.3), including the
 * ones the SDK makes itself (unknown method, bad params) and the door's own (parse error, invalid
 * request, unknown session), over Streamable HTTP and stdio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureBuilt } from '../support/build.js';
import { RawStdioSession, connectMcp, postRaw, type McpConn } from '../mcp/helpers.js';

describe('data.code on every JSON-RPC error over Streamable HTTP', () => {
  let t: TestServer;
  let conn: McpConn;
  beforeAll(async () => {
    t = await startTestServer();
    conn = await connectMcp('v2', 'http', t.url);
  });
  afterAll(async () => {
    await conn?.close();
    await t?.close();
  });
  const session = () => ({
    sessionId: conn.transport.sessionId as string,
    protocolVersion: conn.transport.protocolVersion,
  });

  it('an unknown method is -32601 with data.code method_not_found', async () => {
    const res = await postRaw(
      t.url,
      session(),
      JSON.stringify({ jsonrpc: '2.0', id: 'm1', method: 'no/such_method', params: {} }),
    );
    const reply = res.messages.find((m) => m.id === 'm1');
    expect(reply?.error).toMatchObject({ code: -32601, data: { code: 'method_not_found' } });
  });

  it('a body that is not JSON is -32700 with data.code parse_error', async () => {
    const res = await postRaw(t.url, session(), '{not json');
    expect(res.messages[0]?.error).toMatchObject({ code: -32700, data: { code: 'parse_error' } });
  });

  it('an unknown session is -32001 with data.code session_not_found', async () => {
    const res = await postRaw(
      t.url,
      { sessionId: 'no-such-session' },
      JSON.stringify({ jsonrpc: '2.0', id: 's1', method: 'tools/list', params: {} }),
    );
    expect(res.status).toBe(404);
    expect(res.messages[0]?.error).toMatchObject({ code: -32001, data: { code: 'session_not_found' } });
  });
});

describe('data.code on every JSON-RPC error over stdio', () => {
  let s: RawStdioSession;
  beforeAll(async () => {
    ensureBuilt();
    s = new RawStdioSession();
    await s.initialize();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an unknown method is -32601 with data.code method_not_found', async () => {
    const reply = await s.request('m2', 'no/such_method', {});
    expect(reply.error).toMatchObject({ code: -32601, data: { code: 'method_not_found' } });
  });

  it('params that are not an object is -32600 with data.code invalid_request', async () => {
    const reply = await s.sendLine(
      JSON.stringify({ jsonrpc: '2.0', id: 'p1', method: 'tools/list', params: 'x' }),
      'p1',
    );
    expect(reply.error).toMatchObject({ code: -32600, data: { code: 'invalid_request' } });
  });

  it('a tools/call without a name is an error with a data.code', async () => {
    const reply = await s.request('c1', 'tools/call', { arguments: {} });
    expect(reply.error).toBeDefined();
    expect(typeof (reply.error!.data as any)?.code).toBe('string');
  });
});
