/**
 * The dashboard's sign-in under attack: failures slow the address they come from (and the user as
 * seen from it) with growing waits, while the owner from another address signs in at once; each
 * failure and refusal is logged with a reference to the user (never the email) and counted on
 * /metrics; signing out ends the session on the server.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock, type Logger } from '../../src/operations/index.js';
import { addBusinessUser } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { emailRef } from '../../src/security/index.js';
import { demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';
type Line = { level: string; msg: string; fields: Record<string, unknown> };

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  const log: Logger = { info: at('info'), warn: at('warn'), error: at('error') };
  const clock = new ManualClock(TEST_NOW);
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    clock,
    log,
    sweepIntervalMs: 0,
    webhooks: { enabled: false },
    trustProxy: true,
  });
  const url = await server.listen(0, '127.0.0.1');
  await addBusinessUser(server.store, EMAIL, PASSWORD, clock.now());
  return { url, clock, lines };
}

/** A browser behind our TLS proxy at `ip`. */
function browserAt(url: string, ip: string) {
  const jar = new Map<string, string>();
  const headers = () => ({
    'x-forwarded-for': ip,
    'x-forwarded-proto': 'https',
    cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
  });
  const keep = (res: Response) => {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      if (/max-age=0/i.test(sc) || pair.slice(i + 1) === '') jar.delete(pair.slice(0, i));
      else jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const get = async (path: string) => keep(await fetch(url + path, { headers: headers(), redirect: 'manual' }));
  const post = async (path: string, form: Record<string, string>) =>
    keep(
      await fetch(url + path, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      }),
    );
  return {
    jar,
    get,
    post,
    csrfOf,
    async signIn(email: string, password: string) {
      const page = await (await get('/admin/login')).text();
      return post('/admin/login', { _csrf: csrfOf(page), email, password });
    },
  };
}

describe('dashboard lockouts are not a weapon', () => {
  test("an attacker's address is slowed: past three failures even the right password from it waits, and the wait doubles", async () => {
    const { url, clock } = await start();
    const attacker = browserAt(url, '203.0.113.9');
    for (let i = 0; i < 4; i++) expect((await attacker.signIn(EMAIL, `guess ${i}`)).status).toBe(401);
    const held = await attacker.signIn(EMAIL, PASSWORD);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
    clock.advance(1000);
    expect((await attacker.signIn(EMAIL, 'guess 5')).status).toBe(401);
    expect((await attacker.signIn(EMAIL, PASSWORD)).headers.get('retry-after')).toBe('2');
  });

  test('the owner from another address signs in at once while the attacker is held back', async () => {
    const { url, clock } = await start();
    const attacker = browserAt(url, '203.0.113.9');
    for (let i = 0; i < 8; i++) {
      const r = await attacker.signIn(EMAIL, `guess ${i}`);
      if (r.status === 429) clock.advance(Number(r.headers.get('retry-after')) * 1000);
    }
    expect((await attacker.signIn(EMAIL, PASSWORD)).status).toBe(429);
    const owner = browserAt(url, '198.51.100.7');
    expect((await owner.signIn(EMAIL, PASSWORD)).status).toBe(303);
    expect((await owner.get('/admin')).status).toBe(200);
  });

  test("failures and refusals leave log lines with the user's reference (not the email) and counters on /metrics", async () => {
    const { url, lines } = await start();
    const attacker = browserAt(url, '203.0.113.9');
    for (let i = 0; i < 4; i++) await attacker.signIn(EMAIL, `guess ${i}`);
    expect((await attacker.signIn(EMAIL, 'guess')).status).toBe(429);
    const failed = lines.filter((l) => l.msg === 'dashboard sign-in failed');
    expect(failed).toHaveLength(4);
    expect(failed[0]).toMatchObject({ level: 'warn', fields: { door: 'dashboard', user_ref: emailRef(EMAIL) } });
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'dashboard sign-in refused: too many failures',
        fields: expect.objectContaining({ limit: 'account', user_ref: emailRef(EMAIL) }),
      }),
    );
    expect(JSON.stringify(lines)).not.toContain(EMAIL);
    const metrics = await (
      await fetch(`${url}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'https' } })
    ).text();
    expect(metrics).toMatch(/usp_sign_in_failures_total\{door="dashboard"\} 4/);
    expect(metrics).toMatch(/usp_sign_in_lockouts_total\{door="dashboard",limit="account"\} 1/);
  });
});

describe('signing out of the dashboard ends the session on the server', () => {
  test('the old session cookie, replayed after logout, is sent to the sign-in page', async () => {
    const { url } = await start();
    const owner = browserAt(url, '198.51.100.7');
    expect((await owner.signIn(EMAIL, PASSWORD)).status).toBe(303);
    const page = await (await owner.get('/admin')).text();
    const stolen = `usp_admin_session=${owner.jar.get('usp_admin_session')}`;
    expect((await owner.post('/admin/logout', { _csrf: owner.csrfOf(page) })).status).toBe(303);
    const replay = await fetch(`${url}/admin`, {
      headers: { cookie: stolen, 'x-forwarded-proto': 'https' },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/admin/login');
  });
});
