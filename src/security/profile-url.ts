/**
 * Where this server will fetch from or post to (platform profiles spec 8.2.3, webhook and feed
 * callback URLs): absolute https URLs; plain http only to loopback, in development.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The problem with `raw` as an outbound URL, or null when it is acceptable. */
export function outboundUrlProblem(raw: string, allowLoopbackHttp: boolean, opts: { refuseCredentials?: boolean } = {}): 'not_absolute' | 'credentials' | 'not_https' | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not_absolute';
  }
  if (opts.refuseCredentials && (url.username !== '' || url.password !== '')) return 'credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowLoopbackHttp && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'not_https';
}

export function checkProfileUrl(raw: string, allowLoopbackHttp: boolean): string | null {
  const p = outboundUrlProblem(raw, allowLoopbackHttp);
  return p === null ? null : p === 'not_absolute' ? 'is not an absolute URL' : 'must use https';
}
