/**
 * Signing in to the dashboard and out of it are calls of operation rows through the pipeline, like
 * every other dashboard action: each leaves the pipeline's `call` line and `usp_calls_total` series
 * with door `dashboard`, the password and the session's cookie value never reach a log line (the
 * email only as its reference), a database that is away answers the dashboard's 503 page, and the
 * rows have no JSON route, OpenAPI entry or MCP tool.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  ManualClock,
  OPERATIONS,
  addBusinessUser,
  dashboardSessionGate,
  operationForDashboard,
  type Logger,
} from '../../src/operations/index.js';
import { buildOpenApi, createRestApp } from '../../src/bindings/rest/index.js';
import { mcpTools } from '../../src/bindings/mcp/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { emailRef } from '../../src/security/index.js';
import { StoreUnavailable } from '../../src/store/index.js';
import { signInDashboard } from '../support/dashboard-session.js';
import { recorder, type LogLine } from '../support/log-recorder.js';
import { ADMIN_KEY, demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';
const WRONG = 'a guess nobody should log';

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose log keeps every line, debug included (the pipeline logs a call's input at debug). */
async function start(o: { sandbox?: boolean } = {}) {
  const r = recorder();
  const log: Logger = { ...r.log, debug: (msg, fields = {}) => void r.lines.push({ level: 'debug', msg, fields }) };
  const clock = new ManualClock(TEST_NOW);
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: o.sandbox ?? false,
    adminKeys: [ADMIN_KEY],
    clock,
    log,
    sweepIntervalMs: 0,
    webhooks: { enabled: false },
  });
  const url = await server.listen(0, '127.0.0.1');
  await addBusinessUser(server.store, EMAIL, PASSWORD, clock.now());
  return { url, lines: r.lines, store: server.store };
}

/** A fresh browser's sign-in form: the page's pre-session CSRF token and its cookie. */
async function signInForm(url: string): Promise<{ csrf: string; cookie: string }> {
  const form = await fetch(`${url}/admin/login`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  return {
    csrf,
    cookie: form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

const postSignIn = (url: string, form: { csrf: string; cookie: string }, email: string, password: string) =>
  fetch(`${url}/admin/login`, {
    method: 'POST',
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: form.csrf, email, password }),
    redirect: 'manual',
  });

/** One sign-in form sent from a fresh browser. */
const attempt = async (url: string, email: string, password: string): Promise<Response> =>
  postSignIn(url, await signInForm(url), email, password);

const calls = (lines: LogLine[], operation: string) =>
  lines.filter((l) => l.msg === 'call' && l.fields.operation === operation).map((l) => l.fields);
const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();

describe('signing in to the dashboard is a call through the pipeline', () => {
  test('a sign-in, failed and then good, leaves two call lines and usp_calls_total series with door dashboard', async () => {
    const { url, lines } = await start();
    expect((await attempt(url, EMAIL, WRONG)).status).toBe(401);
    await signInDashboard(url, EMAIL, PASSWORD);
    const op = operationForDashboard('sign_in').name;
    expect(calls(lines, op)).toEqual([
      expect.objectContaining({
        door: 'dashboard',
        principal: 'anonymous',
        outcome: 'authentication_required',
        ok: false,
      }),
      expect.objectContaining({ door: 'dashboard', principal: 'anonymous', outcome: 'ok', ok: true }),
    ]);
    const text = await metrics(url);
    expect(text).toContain(`usp_calls_total{door="dashboard",operation="${op}",outcome="ok"} 1`);
    expect(text).toContain(`usp_calls_total{door="dashboard",operation="${op}",outcome="authentication_required"} 1`);
  });

  test('a sign-in held back by the backoff is a rate_limited call, counted among the rate-limit refusals', async () => {
    const { url, lines } = await start();
    for (let i = 0; i < 3; i++) expect((await attempt(url, EMAIL, `${WRONG} ${i}`)).status).toBe(401);
    // The fourth failure starts the wait: the next attempt is refused unchecked.
    expect((await attempt(url, EMAIL, `${WRONG} 3`)).status).toBe(401);
    const held = await attempt(url, EMAIL, PASSWORD);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
    const op = operationForDashboard('sign_in').name;
    expect(calls(lines, op).at(-1)).toMatchObject({ door: 'dashboard', outcome: 'rate_limited' });
    expect(await metrics(url)).toContain(`usp_rate_limit_refusals_total{door="dashboard",operation="${op}"} 1`);
  });

  test('the password never appears in any log line, at debug level too, and the email only as its reference', async () => {
    const { url, lines } = await start();
    await attempt(url, EMAIL, WRONG);
    await attempt(url, 'nobody@salon.example', WRONG);
    const owner = await signInDashboard(url, EMAIL, PASSWORD);
    expect((await owner.post('/admin/logout', { _csrf: owner.csrf })).status).toBe(303);
    const received = lines.filter(
      (l) => l.msg === 'call received' && l.fields.operation === operationForDashboard('sign_in').name,
    );
    expect(received).toHaveLength(3);
    expect(received[0].fields.input).toEqual({ user_ref: emailRef(EMAIL) });
    expect(received[1].fields.input).toEqual({ user_ref: emailRef('nobody@salon.example') });
    const all = JSON.stringify(lines);
    for (const secret of [PASSWORD, WRONG, EMAIL, 'nobody@salon.example']) expect(all).not.toContain(secret);
  });

  test('the sandbox admin key still signs in with an empty email, logged as the admin key, never the key itself', async () => {
    const { url, lines } = await start({ sandbox: true });
    await signInDashboard(url, '', ADMIN_KEY);
    expect(calls(lines, operationForDashboard('sign_in').name)).toEqual([
      expect.objectContaining({ door: 'dashboard', outcome: 'ok' }),
    ]);
    expect(lines.find((l) => l.msg === 'call received')?.fields.input).toEqual({ user: 'admin-key' });
    expect(JSON.stringify(lines)).not.toContain(ADMIN_KEY);
  });

  test("a store outage during sign-in answers the dashboard's 503 page with Retry-After, not a 500", async () => {
    const { url, lines, store } = await start();
    const form = await signInForm(url);
    const [read, transaction] = [store.read.bind(store), store.transaction.bind(store)];
    store.read = () => Promise.reject(new StoreUnavailable('connection refused'));
    store.transaction = () => Promise.reject(new StoreUnavailable('connection refused'));
    try {
      const res = await postSignIn(url, form, EMAIL, PASSWORD);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('database');
      // A screen behind the gate while the database is away: the same page, not a 500.
      const screen = await fetch(`${url}/admin`, {
        headers: { cookie: 'usp_admin_session=anything' },
        redirect: 'manual',
      });
      expect(screen.status).toBe(503);
    } finally {
      store.read = read;
      store.transaction = transaction;
    }
    expect(calls(lines, operationForDashboard('sign_in').name).at(-1)).toMatchObject({
      door: 'dashboard',
      outcome: 'service_unavailable',
    });
    expect(lines.some((l) => l.msg === 'unexpected HTTP failure')).toBe(false);
  });
});

describe('signing out of the dashboard is a call through the pipeline as the signed-in user', () => {
  test('sign-out deletes the server session: the old cookie, replayed at once, opens neither a screen nor a form', async () => {
    const { url, lines, store } = await start();
    const signedIn = await attempt(url, EMAIL, PASSWORD);
    expect(signedIn.status).toBe(303);
    const token = /usp_admin_session=([^;]+)/.exec(signedIn.headers.getSetCookie().join('\n'))?.[1] ?? '';
    const cookie = `usp_admin_session=${token}`;
    const page = await (await fetch(`${url}/admin`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const gate = dashboardSessionGate({ store, now: () => TEST_NOW, sandbox: false });
    expect(await gate.lookup(token)).not.toBeNull();
    const form = (path: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf }),
        redirect: 'manual',
      });
    const out = await form('/admin/logout');
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/admin/login');
    expect(calls(lines, operationForDashboard('sign_out').name)).toEqual([
      expect.objectContaining({ door: 'dashboard', principal: 'business', outcome: 'ok', ok: true }),
    ]);
    expect(await gate.lookup(token)).toBeNull();
    const screen = await fetch(`${url}/admin`, { headers: { cookie }, redirect: 'manual' });
    expect(screen.status).toBe(303);
    expect(screen.headers.get('location')).toBe('/admin/login');
    expect((await form('/admin/logout')).status).toBe(401);
    // The cookie value opened the dashboard: it is never logged.
    expect(JSON.stringify(lines)).not.toContain(token);
  });
  test("a sign-out that names another user's session ends nothing: not_found, and the session still opens the dashboard", async () => {
    const { url, store } = await start();
    const signedIn = await attempt(url, EMAIL, PASSWORD);
    const token = /usp_admin_session=([^;]+)/.exec(signedIn.headers.getSetCookie().join('\n'))?.[1] ?? '';
    const res = await server!.pipeline.execute(
      operationForDashboard('sign_out'),
      {
        input: { session_token: token },
        trustedCaller: {
          principal: 'business',
          profile: null,
          business: true,
          authenticated: true,
          actor: 'user:someone-else@salon.example',
        },
        door: 'dashboard',
      },
      server!.scope,
    );
    expect(res.ok ? 'ok' : res.error.code).toBe('not_found');
    expect(await dashboardSessionGate({ store, now: () => TEST_NOW, sandbox: false }).lookup(token)).not.toBeNull();
  });
});

describe('the sign-in rows are served by the dashboard door only', () => {
  test('no JSON route, no OpenAPI entry and no MCP tool for signing in or out, or for the first account', async () => {
    const rows = OPERATIONS.filter((o) => o.onlyDoor === 'dashboard').map((o) => o.name);
    expect(rows.sort()).toEqual(
      [
        operationForDashboard('sign_in').name,
        operationForDashboard('sign_out').name,
        operationForDashboard('set_up_owner').name,
      ].sort(),
    );
    const doc = buildOpenApi('https://salon.example') as { paths: Record<string, unknown> };
    expect(doc.paths['/admin/login']).toBeUndefined();
    expect(doc.paths['/admin/logout']).toBeUndefined();
    expect(doc.paths['/admin/setup']).toBeUndefined();
    const tools = [...mcpTools().values()].map((t) => t.tool.name);
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.filter((name) => /sign_in|sign_out|login|logout|set_up/.test(name))).toEqual([]);
    const { url } = await start();
    const rest = createRestApp({
      pipeline: server!.pipeline,
      scopeOf: () => server!.scope,
      profile: () => ({}),
      openapi: () => ({}),
    });
    const res = await rest.fetch(
      new Request(`${url}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      }),
    );
    expect(res.status).toBe(404);
  });

  test('an overlong password is refused with the sign-in page (400) before any check, and is not counted as a failure', async () => {
    const { url, lines } = await start();
    const res = await attempt(url, EMAIL, 'x'.repeat(5000));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Give your email and password.');
    expect(calls(lines, operationForDashboard('sign_in').name)).toEqual([
      expect.objectContaining({ door: 'dashboard', outcome: 'invalid_request' }),
    ]);
    expect(lines.filter((l) => l.msg === 'dashboard sign-in failed')).toEqual([]);
  });

  test('a JSON POST to /admin/login through the host is the form, refused without its CSRF cookie, and signs nobody in', async () => {
    const { url, lines } = await start();
    const res = await fetch(`${url}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      redirect: 'manual',
    });
    expect(res.status).not.toBe(303);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('usp_admin_session='))).toBe(false);
    expect(calls(lines, operationForDashboard('sign_in').name)).toEqual([]);
  });
});
