/**
 * `GET /metrics`: open to a loopback client (a Prometheus on the same host or a sidecar); from any
 * other address it needs an admin API key as a Bearer token. The client is the one clientAddress
 * names: behind a trusted proxy on loopback, the address the proxy forwarded for, so such a proxy
 * does not open it to the world; from anyone else, X-Forwarded-For is ignored.
 */
import { apiKeyMatches, clientAddress, isLoopbackAddress, type TrustedProxies } from '../security/index.js';
import type { ServerMetrics } from './metrics.js';

/** Whether this request may read metrics: from loopback, or with one of these keys as a Bearer token. */
export function metricsAllowed(
  req: Request,
  env: unknown,
  proxies: TrustedProxies,
  keyHashes: readonly string[],
): boolean {
  const client = clientAddress(req, env, proxies);
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')?.[1];
  return Boolean((client && isLoopbackAddress(client)) || (bearer && apiKeyMatches(bearer, keyHashes)));
}

/** The 401 for a metrics request from elsewhere without the key `what` names. */
export function metricsRefused(what: string): Response {
  return new Response(
    JSON.stringify({ error: `metrics are open on loopback; from elsewhere send ${what} as a Bearer token` }),
    {
      status: 401,
      headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
    },
  );
}

export function metricsHandler(
  metrics: ServerMetrics,
  o: { proxies: TrustedProxies; adminKeyHashes: readonly string[] },
): (req: Request, env: unknown) => Promise<Response> | undefined {
  return (req, env) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    if (!req.url.includes('/metrics') || new URL(req.url).pathname !== '/metrics') return undefined;
    if (!metricsAllowed(req, env, o.proxies, o.adminKeyHashes))
      return Promise.resolve(metricsRefused('an admin API key'));
    return metrics.scrape().then(
      (text) =>
        new Response(req.method === 'HEAD' ? null : text, {
          status: 200,
          headers: { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' },
        }),
    );
  };
}
