/**
 * Credentials carried by HTTP itself on the MCP Streamable HTTP transport (spec 9.1.4 MCP note,
 * 9.2.2): an RFC 9421 signature over the POST (Content-Digest of the JSON-RPC body) authenticates
 * the platform as on REST, and the business's API key in `Authorization: Bearer` confirms a manual
 * booking; a tampered body fails the digest before anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createSigningIdentity, signedHeaders } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { normalizeError, nyDate } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ADMIN_KEY, BUYER, demoBusiness } from '../support/server.js';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that signs every request it sends, the way a platform would. */
function signingFetch(id: ReturnType<typeof createSigningIdentity>, profile: string, tamper = false): FetchLike {
  return async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    headers['usp-agent'] = `profile="${profile}"`;
    const body = typeof init.body === 'string' ? init.body : undefined;
    const signed = signedHeaders(id, method, String(url), headers, body);
    const sent = tamper && body ? body.replace('"usp_availability_hold"', '"usp_availability_hold" ') : body;
    return fetch(url, { ...init, headers: signed, body: sent });
  };
}

describe('MCP over HTTP authenticates with HTTP-layer credentials', () => {
  let server: UspServer;
  let url: string;
  let profiles: ProfileServer;
  const id = createSigningIdentity('platform-key-1');
  let profile: string;
  const day = nyDate(Date.now(), 3);

  beforeAll(async () => {
    profiles = await startProfileServer();
    profile = profiles.addProfile('/signer.json', { keys: [id.publicJwk] });
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: false,
      log: silentLogger,
      sweepIntervalMs: 0,
      adminKeys: [ADMIN_KEY],
      security: { allowLoopbackProfiles: true },
    });
    url = await server.listen(0);
  });
  afterAll(async () => {
    await server.close();
    await profiles.close();
  });

  async function connect(fetchImpl?: FetchLike, headers?: Record<string, string>) {
    const client = new Client({ name: 'signed', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        fetch: fetchImpl as never,
        requestInit: headers ? { headers } : undefined,
      }),
    );
    return client;
  }

  async function slotId(client: Client, service = 'svc_haircut'): Promise<string> {
    const q: any = await client.callTool({
      name: 'usp_availability_query',
      arguments: { service_id: service, start_date: day, end_date: day },
    });
    return q.structuredContent.slots[0].id;
  }

  it('a signed platform holds a slot; the same call unsigned is refused (-32006)', async () => {
    const signed = await connect(signingFetch(id, profile));
    const slot = await slotId(signed);
    const ok: any = await signed.callTool({
      name: 'usp_availability_hold',
      arguments: { service_id: 'svc_haircut', slot_id: slot, _meta: { usp: { profile } } },
    });
    expect(ok.structuredContent.hold.status).toBe('active');
    await signed.close();

    const plain = await connect();
    // Unsigned, with no credential at all: an HTTP 401 (MCP authorization) whose body is -32006.
    const err = await plain
      .callTool({
        name: 'usp_availability_hold',
        arguments: { service_id: 'svc_haircut', slot_id: await slotId(plain), _meta: { usp: { profile } } },
      })
      .catch(normalizeError);
    expect(err.code).toBe(-32006);
    await plain.close();
  });

  it('a body changed after signing fails the digest (-32600 digest_mismatch)', async () => {
    const client = await connect(signingFetch(id, profile, true));
    const err = await client
      .callTool({
        name: 'usp_availability_hold',
        arguments: { service_id: 'svc_haircut', slot_id: 'slot_x', _meta: { usp: { profile } } },
      })
      .catch((e) => e);
    expect(err.code).toBe(-32600);
    expect(err.data.code).toBe('digest_mismatch');
    await client.close();
  });

  it("the business's API key in Authorization: Bearer confirms a manual booking", async () => {
    const signed = await connect(signingFetch(id, profile));
    const b: any = await signed.callTool({
      name: 'usp_bookings_create',
      arguments: {
        service_id: 'svc_color_consult',
        slot_id: await slotId(signed, 'svc_color_consult'),
        buyer: BUYER,
        _meta: { usp: { profile } },
      },
    });
    expect(b.structuredContent.booking.status).toBe('pending');
    await signed.close();
    const business = await connect(undefined, { Authorization: `Bearer ${ADMIN_KEY}` });
    const c: any = await business.callTool({
      name: 'usp_bookings_confirm',
      arguments: {
        booking_id: b.structuredContent.booking.id,
        _meta: { usp: { profile: 'https://business.example/self.json' } },
      },
    });
    expect(c.structuredContent.booking.status).toBe('confirmed');
    await business.close();
  });
});
