/**
 * CORS on the REST door, for the browser platforms the business allows (an allow-list of origins,
 * `--cors-origin`). A preflight from an allowed origin is answered with the methods the REST routes
 * use, the request headers USP defines (the platform profile, idempotency, If-Match, proofs and
 * HTTP message signatures) and a max-age; an actual request gets its origin echoed and the
 * answer headers a platform reads exposed. An origin not on the list gets no CORS header at all,
 * so its browser keeps the answer from the script. `*` allows any origin, and then never with
 * credentials; a listed origin is allowed with them.
 */
import type { MiddlewareHandler } from 'hono';

/** Methods of the REST routes (the operations table uses these). */
const REST_CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Request headers a browser platform sends on REST calls. */
const REST_CORS_REQUEST_HEADERS = [
  'Content-Type',
  'Authorization',
  'DPoP',
  'USP-Agent',
  'USP-Correlation-Id',
  'Idempotency-Key',
  'If-Match',
  'Signature',
  'Signature-Input',
  'Content-Digest',
];

/** Answer headers a browser platform must be able to read. */
const REST_CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'USP-Correlation-Id',
  'WWW-Authenticate',
  'DPoP-Nonce',
  'Deprecation',
  'Link',
];

/** Seconds a browser may keep a preflight's answer. */
const REST_CORS_MAX_AGE = 600;

export function restCors(origins: readonly string[]): MiddlewareHandler {
  const any = origins.includes('*');
  const listed = new Set(origins.filter((o) => o !== '*'));
  return async (c, next) => {
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && (listed.has(origin) || any);
    const preflight = c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    const decorate = (h: Headers) => {
      // The answer depends on Origin whenever it is echoed or withheld: caches must keep them apart.
      h.append('Vary', 'Origin');
      if (!allowed) return;
      if (listed.has(origin)) {
        h.set('Access-Control-Allow-Origin', origin);
        h.set('Access-Control-Allow-Credentials', 'true');
      } else {
        h.set('Access-Control-Allow-Origin', '*');
      }
    };
    if (preflight) {
      const res = new Response(null, { status: 204 });
      decorate(res.headers);
      if (allowed) {
        res.headers.set('Access-Control-Allow-Methods', REST_CORS_METHODS.join(', '));
        res.headers.set('Access-Control-Allow-Headers', REST_CORS_REQUEST_HEADERS.join(', '));
        res.headers.set('Access-Control-Max-Age', String(REST_CORS_MAX_AGE));
      }
      return res;
    }
    await next();
    if (origin === undefined) return;
    decorate(c.res.headers);
    if (allowed) c.res.headers.set('Access-Control-Expose-Headers', REST_CORS_EXPOSED_HEADERS.join(', '));
  };
}
