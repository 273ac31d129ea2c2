/**
 * The sandbox is a sandbox on every door: `npm start` accepts a privileged REST call that names its
 * platform (USP-Agent), and an MCP client over Streamable HTTP that sends no credential is told
 * exactly what to send instead (`_meta.usp.profile` in the tool's arguments); sent, the call goes
 * through. With the official MCP SDK client, against a sandbox with OAuth on (as `serve --demo`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthServer, type OAuthTestServer } from '../oauth/support.js';
import { connectMcp, meta, type McpConn } from './helpers.js';

let t: OAuthTestServer;
let mcp: McpConn;
beforeAll(async () => {
  t = await startOAuthServer({ sandbox: true });
  mcp = await connectMcp('v2', 'http', t.url);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

describe('a sandbox MCP call over HTTP without a credential', () => {
  it('is answered with a message that names _meta.usp.profile and shows where it goes', async () => {
    const err = await mcp.callError('usp_availability_hold', { service_id: 'svc_haircut', slot_id: 'slot_missing' });
    expect(err.code).toBe(-32006);
    expect(err.message).toContain('in this sandbox, only your platform profile URL');
    expect(err.message).toContain('{"_meta": {"usp": {"profile": "https://platform.example/profile.json"}}}');
  });

  it('goes through once the arguments carry _meta.usp.profile', async () => {
    const r = await mcp.call('usp_availability_hold', {
      service_id: 'svc_haircut',
      slot_id: 'slot_missing',
      ...meta(),
    });
    // A business answer (the slot is unknown), not an authentication refusal.
    expect(JSON.stringify(r)).not.toContain('authentication');
    expect(r.structuredContent?.messages?.[0]?.type).toBe('error');
  });
});
