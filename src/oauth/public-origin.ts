/**
 * The origin the authorization server publishes is the configured public URL (or the listening
 * address when none is set), never one a request names. oidc-provider builds its endpoint URLs, the
 * resume URL it redirects to and the `htu` it expects in DPoP proofs from the request's Host (and,
 * as a proxy's app, X-Forwarded-Host and X-Forwarded-Proto), so before the library sees a request
 * those headers are overwritten with the public origin's; the provider is told to read them.
 */
import type { IncomingMessage } from 'node:http';

/** Make `incoming` name `origin` (scheme and authority) whatever Host or forwarded headers it came with. */
export function pinToPublicOrigin(incoming: IncomingMessage, origin: string): void {
  const u = new URL(origin);
  const h = incoming.headers;
  h.host = u.host;
  h['x-forwarded-host'] = u.host;
  h['x-forwarded-proto'] = u.protocol.slice(0, -1);
  delete h.forwarded;
  delete h[':authority'];
}
