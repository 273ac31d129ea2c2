/**
 * MCP Apps (io.modelcontextprotocol/ui): the tools that present a booking, a hold, availability or
 * a waitlist entry link their view with _meta.ui.resourceUri, and resources/read of each view
 * answers its self-contained HTML with the extension's MIME type and CSP metadata, on every
 * transport: stdio, Streamable HTTP (session era and the stateless 2026-07-28 era) and SSE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/app-bridge';
import { APP_MIME_TYPE, APP_VIEWS } from '../../src/bindings/mcp/app-views.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { ensureBuilt } from '../support/build.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, testDay, type McpConn } from './helpers.js';

const LINKED: Record<string, string> = {
  usp_availability_query: 'ui://usp/slots',
  usp_availability_hold: 'ui://usp/booking',
  usp_bookings_create: 'ui://usp/booking',
  usp_bookings_get: 'ui://usp/booking',
  usp_bookings_reschedule: 'ui://usp/booking',
  usp_bookings_cancel: 'ui://usp/booking',
  usp_waitlist_accept: 'ui://usp/booking',
  usp_waitlist_join: 'ui://usp/waitlist',
  usp_waitlist_get: 'ui://usp/waitlist',
  usp_waitlist_decline: 'ui://usp/waitlist',
};

async function expectViews(client: any): Promise<void> {
  const { tools } = await client.listTools();
  const links = Object.fromEntries(
    tools.filter((t: any) => t._meta?.ui?.resourceUri).map((t: any) => [t.name, t._meta.ui.resourceUri]),
  );
  expect(links).toEqual(LINKED);
  const listed = (await client.listResources()).resources.filter((r: any) => r.uri.startsWith('ui://'));
  expect(listed.map((r: any) => r.uri).sort()).toEqual(
    Object.values(APP_VIEWS)
      .map((v) => v.uri)
      .sort(),
  );
  for (const view of Object.values(APP_VIEWS)) {
    const res = await client.readResource({ uri: view.uri });
    expect(res.contents).toHaveLength(1);
    const c = res.contents[0];
    expect(c.uri).toBe(view.uri);
    expect(c.mimeType).toBe('text/html;profile=mcp-app');
    expect(c._meta?.ui?.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [] });
    expect(c.text).toMatch(/^<!doctype html>/);
    expect(c.text).toContain('<meta http-equiv="Content-Security-Policy" content="default-src \'none\';');
  }
}

beforeAll(() => ensureBuilt(), 300_000);

describe("the constants are the extension package's own", () => {
  it('the MIME type is RESOURCE_MIME_TYPE, and _meta.ui.resourceUri is the current form (the flat ui/resourceUri key is the deprecated one)', () => {
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(RESOURCE_URI_META_KEY).toBe('ui/resourceUri');
  });

  it('every view a row names exists, and each view is used by at least one row', () => {
    const used = new Set(OPERATIONS.flatMap((o) => (o.view ? [o.view] : [])));
    expect([...used].sort()).toEqual(Object.keys(APP_VIEWS).sort());
  });
});

describe('views on every transport', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  for (const kind of ['http', 'sse', 'memory'] as const) {
    it(`${kind}: tools/list links the views and resources/read answers each with its MIME type and CSP`, async () => {
      const conn: McpConn = await connectMcp('v2', kind, kind === 'memory' ? t : t.url);
      try {
        await expectViews(conn.client);
      } finally {
        await conn.close();
      }
    });
  }

  it('stdio: tools/list links the views and resources/read answers each with its MIME type and CSP', async () => {
    const conn = await connectMcp('v2', 'stdio');
    try {
      await expectViews(conn.client);
    } finally {
      await conn.close();
    }
  }, 60_000);

  it('the stateless 2026-07-28 era on /mcp: the same links and the same view resources', async () => {
    const client = new Client(
      { name: 'apps-modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      await expectViews(client);
    } finally {
      await client.close();
    }
  });

  it('a host that advertises the extension gets the very same text and structured content as a client that does not', async () => {
    const plain = new Client({ name: 'no-ui', version: '1' });
    const host = new Client(
      { name: 'ui-host', version: '1' },
      {
        capabilities: {
          extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
        } as never,
      },
    );
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    await host.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      const args = { service_id: 'svc_haircut', start_date: testDay(4), end_date: testDay(4), limit: 5 };
      const a: any = await plain.callTool({ name: 'usp_availability_query', arguments: args });
      const b: any = await host.callTool({ name: 'usp_availability_query', arguments: args });
      expect(b.content).toEqual(a.content);
      expect(b.structuredContent).toEqual(a.structuredContent);
      expect(a.content[0].text).toContain(a.structuredContent.slots[0].id);
    } finally {
      await plain.close();
      await host.close();
    }
  });

  it("a result of a tool with a view carries what the view shows under _meta['dev.usp-server/view']; a tool without one carries none", async () => {
    const conn = await connectMcp('v2', 'memory', t);
    try {
      const q = await conn.call('usp_availability_query', {
        service_id: 'svc_haircut',
        start_date: testDay(4),
        end_date: testDay(4),
        limit: 3,
      });
      expect((q as any)._meta['dev.usp-server/view']).toMatchObject({
        business: 'Maple & Pine Salon and Studio',
        zone: 'America/New_York',
        now: new Date(t.clock.now()).toISOString(),
        service: 'Haircut & Style',
        price: '$65.00',
      });
      expect((q as any)._meta['dev.usp-server/view'].terms.join(' ')).toMatch(/^Cancel: /);
      const s = await conn.call('usp_services_list', {});
      expect((s as any)._meta['dev.usp-server/view']).toBeUndefined();
    } finally {
      await conn.close();
    }
  });

  it('a view resource unknown to the server is resource_not_found, not a crash', async () => {
    const conn = await connectMcp('v2', 'memory', t);
    try {
      const err: any = await conn.client.readResource({ uri: 'ui://usp/nothing' }).catch((e: unknown) => e);
      expect(err?.data?.code).toBe('resource_not_found');
    } finally {
      await conn.close();
    }
  });
});
