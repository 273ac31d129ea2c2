/**
 * Spec 8.3 step 4: an extension the platform declares without its base capability is orphaned and
 * pruned from the negotiation. Both doors: a waitlist call from a platform that declares waitlist
 * but not bookings is refused as capabilities_incompatible and its `usp` object names neither;
 * a platform declaring both is served: its call reaches the operation, which answers the unknown
 * entry as the newer text does (404 `entry_not_found`; MCP -32602 with that code).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createPopKey, dpopHeaders, withMcpProof } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { prunedCapabilities } from '../../src/operations/core/negotiation.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { demoBusiness } from '../support/server.js';

const V = [{ version: '2026-08-20' }];
const BOOKINGS = 'dev.usp-protocol.services.bookings';
const WAITLIST = 'dev.usp-protocol.services.waitlist';
const AVAIL = 'dev.usp-protocol.services.availability';

let server: UspServer;
let url: string;
let profiles: ProfileServer;
let orphan: string;
let whole: string;

const profile = (path: string, caps: Record<string, unknown>) =>
  profiles.setRaw(path, JSON.stringify({ usp: { version: '2026-08-20', capabilities: caps } }), 200, {
    'Content-Type': 'application/json',
  });

beforeAll(async () => {
  profiles = await startProfileServer();
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true },
  });
  url = await server.listen(0, '127.0.0.1');
  orphan = profile('/orphan.json', { [AVAIL]: V, [WAITLIST]: V });
  whole = profile('/whole.json', { [AVAIL]: V, [BOOKINGS]: V, [WAITLIST]: V });
});
afterAll(async () => {
  await server?.close();
  await profiles?.close();
});

describe('pruning orphaned extensions (8.3 step 4)', () => {
  test('an extension whose base is missing is pruned, and so is one whose base was pruned', () => {
    expect([...prunedCapabilities([AVAIL, WAITLIST])]).toEqual([AVAIL]);
    expect([...prunedCapabilities(['dev.usp-server.services.bookings', WAITLIST])]).toEqual([]);
    expect([...prunedCapabilities([BOOKINGS, WAITLIST])].sort()).toEqual([BOOKINGS, WAITLIST]);
    expect([...prunedCapabilities(['dev.usp-protocol.services.catalog.subscriptions'])]).toEqual([]);
  });

  async function restWaitlistGet(p: string) {
    const path = '/waitlist/wl_conformance_unknown';
    const res = await fetch(`${url}${path}`, {
      headers: { 'USP-Agent': `profile="${p}"`, ...dpopHeaders(createPopKey(), 'GET', `${url}${path}`) },
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  test('REST: waitlist declared without bookings is pruned: capabilities_incompatible, and the usp object names neither', async () => {
    const r = await restWaitlistGet(orphan);
    expect(r.status).toBe(200);
    expect(r.body.messages.map((m: any) => m.code)).toEqual(['capabilities_incompatible']);
    expect(Object.keys(r.body.usp.capabilities ?? {})).toEqual([]);
  });

  test('REST: waitlist declared with bookings is served: the operation itself answers the unknown entry', async () => {
    const r = await restWaitlistGet(whole);
    expect([r.status, r.body.code]).toEqual([404, 'entry_not_found']);
  });

  test('MCP: the same pruning on the other door', async () => {
    const client = new Client({ name: 'pruning-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)));
    try {
      const call = async (p: string) => {
        const args = withMcpProof(
          createPopKey(),
          'usp_waitlist_get',
          { entry_id: 'wl_conformance_unknown', _meta: { usp: { profile: p } } },
          `${url}/.well-known/usp`,
        );
        return (await client.callTool({ name: 'usp_waitlist_get', arguments: args })) as any;
      };
      const pruned = await call(orphan);
      expect(pruned.structuredContent.messages.map((m: any) => m.code)).toEqual(['capabilities_incompatible']);
      expect(Object.keys(pruned.structuredContent.usp.capabilities ?? {})).toEqual([]);
      // Served: the negotiation let it through, and the operation answers the unknown entry.
      await expect(call(whole)).rejects.toMatchObject({ code: -32602, data: { code: 'entry_not_found' } });
    } finally {
      await client.close();
    }
  });
});
