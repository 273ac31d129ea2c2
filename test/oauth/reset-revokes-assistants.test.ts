/**
 * A password reset signs the account out everywhere, linked assistants included: the access and
 * refresh tokens an assistant held before the reset are refused after it (at the MCP door and the
 * token endpoint), while an assistant linked afterwards works.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { recorder } from '../support/log-recorder.js';
import {
  Browser,
  actionOf,
  csrfOf,
  linkedTokens,
  mcpCallAt,
  startOAuthServer,
  tokenRequest,
  type OAuthTestServer,
} from './support.js';

const EMAIL = 'reset.assistant@example.com';
let t: OAuthTestServer | undefined;
afterEach(async () => {
  await t?.close();
});

/** Ask for a reset link (no mailer: the link is written to the log) and set a new password through it. */
async function resetPassword(
  server: OAuthTestServer,
  rec: ReturnType<typeof recorder>,
  password: string,
): Promise<void> {
  const browser = new Browser(server.url);
  const page = await (await browser.request('/account/forgot')).text();
  expect((await browser.request('/account/forgot', { form: { csrf: csrfOf(page), email: EMAIL } })).status).toBe(200);
  let url: string | undefined;
  for (let i = 0; i < 100 && !url; i++) {
    url = rec.lines.find((l) => l.msg.startsWith('password reset link (no mailer'))?.fields.url as string | undefined;
    if (!url) await new Promise((r) => setTimeout(r, 10));
  }
  expect(url, 'the reset link').toBeDefined();
  const form = await (await browser.request(new URL(url!).pathname)).text();
  const done = await browser.request(actionOf(form), { form: { csrf: csrfOf(form), password } });
  expect(done.status).toBe(200);
}

describe('a password reset revokes every linked assistant’s grant', () => {
  test('an access token and a refresh token working before the reset are refused after it', async () => {
    const rec = recorder();
    t = await startOAuthServer({ log: rec.log });
    const { client, tokens } = await linkedTokens(t, EMAIL);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await mcpCallAt(t.url, 'uspserver_bookings_list', {}, bearer)).status).toBe(200);

    await resetPassword(t, rec, 'a brand new long password');

    expect((await mcpCallAt(t.url, 'uspserver_bookings_list', {}, bearer)).status).toBe(401);
    const refresh = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const left = await t.server.store.read(async (tx) => [
      ...(await tx.oauth.byAccount('Grant', (await tx.accounts.byEmail(EMAIL))!.id, Date.now())),
      ...(await tx.oauth.byAccount('AccessToken', (await tx.accounts.byEmail(EMAIL))!.id, Date.now())),
      ...(await tx.oauth.byAccount('RefreshToken', (await tx.accounts.byEmail(EMAIL))!.id, Date.now())),
    ]);
    expect(left).toEqual([]);

    // Linking again with the new password gives a working token.
    const again = await linkedTokens(t, EMAIL, { signUp: false, password: 'a brand new long password' });
    expect(
      (await mcpCallAt(t.url, 'uspserver_bookings_list', {}, { authorization: `Bearer ${again.tokens.access_token}` }))
        .status,
    ).toBe(200);
  });
});
