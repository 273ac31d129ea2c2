/**
 * Correlation ids (the MCP binding's `_meta.usp.correlation_id`, HTTP's `USP-Correlation-Id`):
 * the caller's id answers every call, result or error, on both doors and every transport, and
 * it is in the log lines about the call. `_meta.usp.correlation_id` wins over the header.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, type McpConn } from './helpers.js';
import { ensureBuilt } from '../support/build.js';

type Line = { msg: string; fields?: Record<string, unknown> };
const logged: Line[] = [];
const capture = {
  info: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }),
  warn: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }),
  error: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, fields }),
};

let t: TestServer;
let strict: TestServer;
beforeAll(async () => {
  ensureBuilt();
  t = await startTestServer();
  strict = await startTestServer({ sandbox: false, log: capture });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await strict?.close();
});

/** A v2 client whose every HTTP request carries `USP-Correlation-Id: id`. */
async function clientWithHeader(url: string, kind: 'http' | 'sse', id: string): Promise<Client> {
  const requestInit = { headers: { 'USP-Correlation-Id': id } };
  const transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit })
      : new SSEClientTransport(new URL('/sse', url), { requestInit });
  const client = new Client({ name: 'corr-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string; data: any }> {
  try {
    await p;
  } catch (err) {
    return err as { code: number; message: string; data: any };
  }
  throw new Error('expected a JSON-RPC error');
}

describe.each(['http', 'sse'] as const)(
  'over %s, the USP-Correlation-Id header is the id when _meta.usp has none',
  (kind) => {
    it('a result carries the header id in _meta.usp.correlation_id', async () => {
      const id = `hdr-${randomUUID()}`;
      const client = await clientWithHeader(t.url, kind, id);
      try {
        const r = (await client.callTool({ name: 'usp_services_list', arguments: {} })) as any;
        expect(r._meta.usp.correlation_id).toBe(id);
      } finally {
        await client.close();
      }
    });

    it('an unknown tool and a refused _meta answer with the header id in data.correlation_id', async () => {
      const id = `hdr-${randomUUID()}`;
      const client = await clientWithHeader(t.url, kind, id);
      try {
        const unknown = await rpcError(client.callTool({ name: 'usp_bookings_teleport', arguments: {} }));
        expect(unknown.data).toMatchObject({ reason: 'unknown_tool', correlation_id: id });
        expect(unknown.data.code).toBeUndefined();
        const badMeta = await rpcError(
          client.callTool({ name: 'usp_services_list', arguments: { _meta: { usp: { bogus: 'x' } } } }),
        );
        expect(badMeta.data).toMatchObject({ code: 'invalid_request', correlation_id: id });
        const sent = `meta-${randomUUID()}`;
        const r = (await client.callTool({
          name: 'usp_services_list',
          arguments: { _meta: { usp: { correlation_id: sent } } },
        })) as any;
        expect(r._meta.usp.correlation_id, '_meta.usp wins over the header').toBe(sent);
      } finally {
        await client.close();
      }
    });
  },
);

describe('over stdio, _meta.usp.correlation_id answers errors refused before the metadata was accepted', () => {
  let conn: McpConn;
  beforeAll(async () => {
    conn = await connectMcp('v2', 'stdio');
  }, 60_000);
  afterAll(async () => conn?.close());

  it('an unknown tool carries the sent id in data.correlation_id', async () => {
    const id = `corr-${randomUUID()}`;
    const err = await conn.callError('usp_bookings_teleport', { _meta: { usp: { correlation_id: id } } });
    expect(err.data).toMatchObject({ reason: 'unknown_tool', correlation_id: id });
    expect(err.data.code).toBeUndefined();
  });

  it('a _meta.usp with a member the tool does not allow carries the sent id in data.correlation_id', async () => {
    const id = `corr-${randomUUID()}`;
    const err = await conn.callError('usp_services_list', {
      _meta: { usp: { correlation_id: id, if_match: 'rev_1' } },
    });
    expect(err.data).toMatchObject({ code: 'invalid_request', correlation_id: id });
  });

  it('an id that is not 1-256 visible ASCII characters is refused, naming the field', async () => {
    const err = await conn.callError('usp_services_list', { _meta: { usp: { correlation_id: 'has spaces in it' } } });
    expect(err.data.errors).toEqual([
      { field: '_meta.usp.correlation_id', message: expect.stringContaining('visible ASCII') },
    ]);
  });
});

describe('the id is written into the log lines about the call, on both doors', () => {
  it('REST: a refused privileged call echoes the header and logs it', async () => {
    const id = `rest-${randomUUID()}`;
    const res = await strict.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: 'x' },
      { headers: { 'USP-Correlation-Id': id } },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('usp-correlation-id')).toBe(id);
    expect(logged.find((l) => l.msg === 'authentication refused' && l.fields?.correlation_id === id)).toBeDefined();
  });

  it('MCP: a refused privileged call answers with the _meta id and logs it', async () => {
    const id = `mcp-${randomUUID()}`;
    const conn = await connectMcp('v2', 'http', strict.url);
    try {
      const err = await conn.callError('usp_availability_hold', {
        service_id: 'svc_haircut',
        slot_id: 'x',
        ...meta(PLATFORM, { correlation_id: id, idempotency_key: randomUUID() }),
      });
      expect(err.code).toBe(-32006);
      expect(err.data.correlation_id).toBe(id);
      expect(logged.find((l) => l.msg === 'authentication refused' && l.fields?.correlation_id === id)).toBeDefined();
    } finally {
      await conn.close();
    }
  });

  it('REST: an unusable header id (too long) is replaced by a fresh one, never echoed', async () => {
    const res = await t.call('GET', '/services/svc_haircut', undefined, {
      profile: null,
      headers: { 'USP-Correlation-Id': 'x'.repeat(300) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('usp-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
