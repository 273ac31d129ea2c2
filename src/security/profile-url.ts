/**
 * Where this server will fetch from or post to (platform profiles spec 8.2.3, webhook and feed
 * callback URLs): absolute https URLs; plain http only to loopback, in development.
 */
import { memoByString } from '../domain/index.js';
import { isLoopbackAddress } from './ssrf.js';

/** This machine's loopback interface by the names a URL's hostname usually spells it with. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * `host` (a URL's hostname, or a bare address such as `::1` to listen on) names the loopback
 * interface: `localhost`, any address of 127.0.0.0/8 (127.0.0.2 is as local as 127.0.0.1), `::1`.
 */
export function isLoopbackHost(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host);
}

/** A name under `.localhost` (rosa.localhost): loopback by RFC 6761 6.3, as a hosting deployment names its businesses locally. */
export function isLocalhostName(host: string): boolean {
  return host.toLowerCase().replace(/\.$/, '').endsWith('.localhost');
}

/** The problem with `raw` as an outbound URL, or null when it is acceptable. */
export function outboundUrlProblem(
  raw: string,
  allowLoopbackHttp: boolean,
  opts: { refuseCredentials?: boolean } = {},
): 'not_absolute' | 'credentials' | 'not_https' | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not_absolute';
  }
  if (opts.refuseCredentials && (url.username !== '' || url.password !== '')) return 'credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowLoopbackHttp && (isLoopbackHost(url.hostname) || isLocalhostName(url.hostname)))
    return null;
  return 'not_https';
}

/** The words for a profile URL's problem, or null, 1,000 URLs kept per loopback rule: a platform sends the same one on every call. */
const checked = [false, true].map((loopback) =>
  memoByString(1_000, (raw) => {
    const p = outboundUrlProblem(raw, loopback);
    return p === null ? null : p === 'not_absolute' ? 'is not an absolute URL' : 'must use https';
  }),
);

/**
 * What is wrong with `raw` as a platform profile URL, in words, or null. Every public call checks
 * its caller's profile URL; each URL is parsed once (issue 40 item 3) and its answer kept.
 */
export function checkProfileUrl(raw: string, allowLoopbackHttp: boolean): string | null {
  return checked[allowLoopbackHttp ? 1 : 0](raw);
}
