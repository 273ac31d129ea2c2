/**
 * Which redirect URIs a client may register (RFC 8252 for native apps, RFC 9700 section 4.1): an
 * https URL; http only on the loopback interface (any port: a native app listens on whatever port
 * it gets); a private-use scheme only for `application_type: native`. Everything else, plain http
 * to a named host included (`http://localhost.evil.com/` is not loopback), is refused.
 */

/** The loopback hosts an http redirect may name (RFC 8252 section 7.3; `localhost` as MCP clients use it). */
const LOOPBACK_REDIRECT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes that are never a client's own, whatever the application type. */
const FOREIGN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
]);

/** The problem with `uri` as a redirect URI of a client of `applicationType`, or undefined when it is acceptable. */
export function redirectUriProblem(uri: string, applicationType: string | undefined): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:') {
    return LOOPBACK_REDIRECT_HOSTS.has(u.hostname)
      ? undefined
      : 'uses http on a host other than the loopback interface (use https, or http on 127.0.0.1, [::1] or localhost)';
  }
  if (FOREIGN_SCHEMES.has(u.protocol))
    return `uses the ${u.protocol.slice(0, -1)} scheme, which no client may redirect to`;
  if (applicationType !== 'native')
    return 'uses a private-use scheme, which only clients registered with application_type native may use';
  return undefined;
}
