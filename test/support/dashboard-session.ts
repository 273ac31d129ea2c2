/** A signed-in dashboard session over plain HTTP: a cookie jar, GET and form POST helpers, and the session's CSRF token. */
import { expect } from 'vitest';

export interface DashboardClient {
  get(path: string): Promise<Response>;
  post(path: string, form: Record<string, string>): Promise<Response>;
  csrf: string;
  /** The session's cookies as a Cookie header. */
  cookies(): string;
}

export async function signInDashboard(
  baseUrl: string,
  email: string,
  password: string,
  fetchImpl: typeof fetch = fetch,
): Promise<DashboardClient> {
  const jar = new Map<string, string>();
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const get = async (path: string) =>
    keep(await fetchImpl(baseUrl + path, { headers: { cookie: cookies() }, redirect: 'manual' }));
  const post = async (path: string, form: Record<string, string>) =>
    keep(
      await fetchImpl(baseUrl + path, {
        method: 'POST',
        headers: { cookie: cookies(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      }),
    );
  const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const login = await (await get('/admin/login')).text();
  const signed = await post('/admin/login', { _csrf: csrfOf(login), email, password });
  expect(signed.status).toBe(303);
  const csrf = csrfOf(await (await get('/admin')).text());
  expect(csrf).not.toBe('');
  return { get, post, csrf, cookies };
}
