/**
 * Where a checkout may send the buyer's browser back to (spec 8.5.5's post_payment_return_request):
 * an https URL on the origin of the platform that asked (the origin its profile is served from),
 * or, in development (`--allow-loopback-profiles`), plain http on loopback. Never another scheme
 * (`javascript:`, `data:`), and never a third site: the redirect is the business vouching for it.
 */
import { isLoopbackHost } from './profile-url.js';

/**
 * Null when `url` is an acceptable return address for a caller whose platform profile is
 * `profileUrl` (null for the business itself, which may name any https URL); else why not.
 */
export function returnUrlProblem(url: string, profileUrl: string | null, allowLoopback: boolean): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  if (u.protocol === 'http:' && allowLoopback && isLoopbackHost(u.hostname)) return null;
  if (u.protocol !== 'https:') return 'must be an https URL';
  if (profileUrl === null) return null;
  let registered: string;
  try {
    registered = new URL(profileUrl).origin;
  } catch {
    return "must be on the platform profile's origin";
  }
  return u.origin === registered ? null : `must be on the platform profile's origin (${registered})`;
}
