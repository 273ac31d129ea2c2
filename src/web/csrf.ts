/**
 * The CSRF scheme of the pages that have no session of their own (the buyer's checkout, the
 * OAuth sign-in and account pages): a synchronizer token double-submitted, a random value in a
 * `SameSite=Strict`, HttpOnly cookie and the same value in every form, compared in constant time;
 * and a browser that says the post came from another site (`Sec-Fetch-Site`) is refused outright.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

export const CSRF_COOKIE = 'usp_csrf';
const TOKEN = /^[A-Za-z0-9_-]{32,64}$/;

/** One cookie's value from the request, or undefined. */
export function readCookie(c: Context, name: string): string | undefined {
  for (const part of (c.req.header('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** Whether the browser reached us over https (directly, or as the proxy in front says): cookies are then `Secure`. */
export function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

/** Whether two strings are the same, in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The form token for this browser, and the cookie to set when it has none yet. */
export function csrfFor(c: Context, opts: { secure: boolean }): { token: string; setCookie?: string } {
  const have = readCookie(c, CSRF_COOKIE);
  if (have && TOKEN.test(have)) return { token: have };
  const token = randomBytes(24).toString('base64url');
  return {
    token,
    setCookie: `${CSRF_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${opts.secure ? '; Secure' : ''}`,
  };
}

/** Whether a form post carries this browser's token and did not come from another site. */
export function csrfOk(c: Context, sent: unknown): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const have = readCookie(c, CSRF_COOKIE);
  return Boolean(have) && typeof sent === 'string' && sameText(have!, sent);
}
