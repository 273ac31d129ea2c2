/**
 * The whole MCP authorization flow as a person meets it: the official MCP SDK client (v1,
 * `@modelcontextprotocol/sdk`, with an OAuthClientProvider) talks to /mcp over real HTTP on
 * loopback; a privileged call gets 401, the SDK discovers the protected resource and the
 * authorization server, registers itself (RFC 7591) and sends the person to the authorization URL;
 * Debian's chromium (playwright-core, JavaScript off) fills in sign-up, the mailed code and consent;
 * the SDK exchanges the code (PKCE) and books, lists and cancels with no hand-made `_meta`; the
 * account page lists the assistant and removes it, after which the token is refused.
 * Screenshots go to docs/screenshots/ only when USP_SCREENSHOTS=1.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { day } from '../support/server.js';
import { startOAuthServer, type OAuthTestServer } from './support.js';
import {
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';

noteWithoutChromium('mcp-oauth.browser');
const CALLBACK = 'http://127.0.0.1:1/oauth/callback';

/** What an MCP host keeps between runs: its registration, its tokens, the PKCE verifier in flight. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = CALLBACK;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'Playwright Assistant',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  state() {
    return 'state-from-the-host';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(c: OAuthClientInformationMixed) {
    this.client = c;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

describe.skipIf(!HAVE_CHROMIUM)(
  'an MCP host links a buyer account through OAuth and books with no hand-made _meta (skipped without /usr/bin/chromium)',
  () => {
    let t: OAuthTestServer;
    let browser: import('playwright-core').Browser;

    beforeAll(async () => {
      browser = await launchBrowser();
      t = await startOAuthServer();
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    /** axe-core on the page as the person's browser sees it (same cookies), in a context that may run it. */
    async function axe(context: import('playwright-core').BrowserContext, url: string): Promise<string[]> {
      const probe = await axeContext(browser, {
        storageState: await context.storageState(),
        viewport: { width: 390, height: 844 },
      });
      const page = await probe.newPage();
      await page.goto(url);
      const found = await axeViolations(page);
      await probe.close();
      return found;
    }

    it('discovery, registration, sign-up, consent, token, a booking, history, cancel, and removal from the account page', async () => {
      const provider = new MemoryOAuthProvider();
      const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider });
      const client = new Client({ name: 'playwright-assistant', version: '1.0.0' });
      await client.connect(transport);
      const tools = (await client.listTools()).tools.map((x) => x.name);
      expect(tools).toEqual(
        expect.arrayContaining(['usp_bookings_create', 'uspserver_bookings_list', 'usp_bookings_cancel']),
      );

      // Public calls need no token.
      const slots: any = await client.callTool({
        name: 'usp_availability_query',
        arguments: { service_id: 'svc_haircut', start_date: day(5), end_date: day(5) },
      });
      const slot = slots.structuredContent.slots[0].id as string;
      const book = {
        name: 'usp_bookings_create',
        arguments: {
          service_id: 'svc_haircut',
          slot_id: slot,
          buyer: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' },
        },
      };

      // A privileged call without a token: 401, discovery, registration, and a URL for the person.
      await expect(client.callTool(book)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.client?.client_id).toBeTruthy();
      const authUrl = provider.authorizationUrl!;
      expect(authUrl.origin + authUrl.pathname).toBe(`${t.url}/oauth/authorize`);
      expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authUrl.searchParams.get('resource')).toBe(`${t.url}/mcp`);

      // The person, in a browser with JavaScript off.
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        javaScriptEnabled: false,
        locale: 'en-US',
      });
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(t.url) && !r.url().startsWith(CALLBACK)) foreign.push(r.url());
      });
      let callback: URL | undefined;
      await context.route(`${CALLBACK}**`, async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
      });

      await page.goto(authUrl.href);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      expect(await page.textContent('main')).toContain('Playwright Assistant');
      expect(await axe(context, page.url())).toEqual([]);
      await photograph(page, 'oauth-login-phone');

      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByLabel('Your name').fill('Grace Hopper');
      await page.getByLabel('Email').fill('grace@example.com');
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Continue' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Check your email');
      // Keyboard only: the code field takes focus by Tab and Enter submits.
      await page.getByLabel('Code').focus();
      await page.keyboard.type(t.codes.get('grace@example.com')!);
      await page.keyboard.press('Enter');

      await page.waitForSelector('h1');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Playwright Assistant?');
      const consent = await page.textContent('main');
      expect(consent).toContain('Book for you');
      expect(consent).toContain('See your bookings');
      expect(await axe(context, page.url())).toEqual([]);
      await photograph(page, 'oauth-consent-phone');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${CALLBACK}**`);
      expect(callback?.searchParams.get('iss')).toBe(t.url);
      expect(callback?.searchParams.get('state')).toBe('state-from-the-host');

      // Back in the host: the code for tokens, then the call again, with no _meta at all.
      await transport.finishAuth(callback!.searchParams.get('code')!);
      expect(provider.saved?.refresh_token).toBeTruthy();
      const made: any = await client.callTool(book);
      expect(made.isError).toBeFalsy();
      const booking = made.structuredContent.booking;
      expect(booking.status).toBe('confirmed');
      const history: any = await client.callTool({ name: 'uspserver_bookings_list', arguments: {} });
      expect(history.structuredContent.bookings.map((b: any) => b.id)).toEqual([booking.id]);
      const canceled: any = await client.callTool({
        name: 'usp_bookings_cancel',
        arguments: { booking_id: booking.id },
      });
      expect(canceled.structuredContent.booking.status).toBe('canceled');

      // The account page lists the assistant; removing it ends its access.
      await page.goto(`${t.url}/account`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
      expect(await page.textContent('main')).toContain('Playwright Assistant');
      expect(await axe(context, page.url())).toEqual([]);
      await photograph(page, 'oauth-account-phone');
      await page.getByRole('button', { name: 'Remove access for Playwright Assistant' }).click();
      expect(await page.textContent('main')).toContain('No assistant is linked to your account.');
      await expect(client.callTool({ name: 'uspserver_bookings_list', arguments: {} })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );

      expect(foreign).toEqual([]);
      await context.close();
      await client.close();
    }, 90_000);
  },
);
