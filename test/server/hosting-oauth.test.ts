/**
 * OAuth across hosted businesses (issue 39, the isolation matrix's OAuth row): the demo salon and
 * Nord Studio hosted by one listener on their `*.localhost` names, each its own authorization
 * server. A buyer's access token and refresh token issued by the salon, and a client registered
 * there, are nothing at Nord: refused, and Nord's bookings unchanged. The OAuth test helpers drive
 * the flows; their `fetch` is the one that reaches `*.localhost` names (test/support/host-fetch.ts).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { hostFetch } from '../support/host-fetch.js';
import {
  authorizeUrl,
  Browser,
  linkedTokens,
  mcpCallAt,
  pkce,
  tokenRequest,
  type OAuthTestServer,
} from '../oauth/support.js';
import { deployTwo, undeploy, type Deployment } from '../support/hosting.js';

let d: Deployment;
let salon: OAuthTestServer;
let nord: OAuthTestServer;

beforeAll(async () => {
  vi.stubGlobal('fetch', hostFetch);
  d = await deployTwo({ server: { sandbox: false, webhooks: { enabled: false } } });
  const { codes, port } = d;
  // The helpers read `url` and `codes`; the rest of a test server is not theirs to use here.
  const as = (name: string) => ({ url: `http://${name}:${port}`, codes }) as unknown as OAuthTestServer;
  salon = as('salon.localhost');
  nord = as('nord.localhost');
}, 60_000);
afterAll(async () => {
  await undeploy(d);
  vi.unstubAllGlobals();
});

const bookings = async (t: OAuthTestServer, token: string) =>
  mcpCallAt(t.url, 'uspserver_bookings_list', {}, { authorization: `Bearer ${token}` });

describe("one business's OAuth means nothing at another's host", () => {
  test('an access token, a refresh token and a client of the salon are refused at Nord', async () => {
    const { client, tokens } = await linkedTokens(salon, 'ada@example.com');
    expect((await bookings(salon, tokens.access_token)).status).toBe(200);
    // The salon's token at Nord's MCP endpoint and REST door.
    const crossed = await bookings(nord, tokens.access_token);
    expect(crossed.status).toBe(401);
    expect(crossed.headers.get('www-authenticate') ?? '').toContain('invalid_token');
    expect(JSON.stringify(crossed.body)).not.toContain('Maple');
    const onRest = await hostFetch(`${nord.url}/ext/usp-server/bookings`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(onRest.status).toBe(401);
    // The salon's refresh token and client at Nord's token endpoint.
    const refreshed = await tokenRequest(nord.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect([400, 401]).toContain(refreshed.status);
    expect(refreshed.body.error).toMatch(/invalid_(grant|client)/);
    // The salon's client at Nord's authorization endpoint: not a client there.
    const authorize = await new Browser(nord.url).request(
      authorizeUrl(nord.url, client.client_id, pkce(), { resource: `${nord.url}/mcp` }),
    );
    expect(authorize.status).toBe(400);
    expect(await authorize.text()).not.toContain('Maple');
    // Nord's own client and token still work, and see none of the salon's buyer's bookings.
    const own = await linkedTokens(nord, 'ada@example.com');
    const nordList = await bookings(nord, own.tokens.access_token);
    expect(nordList.status).toBe(200);
    expect(JSON.stringify(nordList.body)).not.toContain('svc_haircut');
  });
});
