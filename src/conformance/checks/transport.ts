/**
 * CORS on the REST door (9.6, "CORS headers SHOULD be configured appropriately for browser-based
 * clients"): a business must not hand its answers to every origin's scripts (an echoed foreign
 * origin, or `*` with credentials), and, given the origin of a browser platform it allows
 * (`--origin`), it answers that origin's preflight with the methods and the USP request headers
 * (USP-Agent, Idempotency-Key, If-Match, DPoP, the signature headers) and a max-age, and its
 * actual requests with the origin allowed.
 */
import { describeAnswer } from '../../client/index.js';
import { expectThat, skip, type Check, type CheckContext } from '../types.js';

/** An origin no business allows: a reserved name (RFC 2606). */
export const FOREIGN_ORIGIN = 'https://conformance-foreign-origin.invalid';

/** Request headers a browser platform sends on USP REST calls. */
const USP_REQUEST_HEADERS = [
  'content-type',
  'usp-agent',
  'idempotency-key',
  'if-match',
  'dpop',
  'signature',
  'signature-input',
  'content-digest',
];

function preflight(ctx: CheckContext, origin: string) {
  return ctx.rest.send('/services/list', {
    method: 'OPTIONS',
    profile: null,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': USP_REQUEST_HEADERS.join(', '),
    },
  });
}

const list = (v: string | null) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

export const transportChecks: Check[] = [
  {
    id: 'cors.foreign-origin',
    section: 'headers',
    clause: '9.6',
    level: 'SHOULD',
    title: 'an origin the business did not allow is not given CORS (no echoed origin, never * with credentials)',
    async run(ctx) {
      for (const a of [
        await preflight(ctx, FOREIGN_ORIGIN),
        await ctx.rest.post('/services/list', { pagination: { limit: 1 } }, { headers: { Origin: FOREIGN_ORIGIN } }),
      ]) {
        const allow = a.headers.get('access-control-allow-origin');
        expectThat(
          allow !== FOREIGN_ORIGIN,
          `an unlisted origin is echoed in Access-Control-Allow-Origin (${describeAnswer(a)})`,
        );
        expectThat(
          !(allow === '*' && a.headers.get('access-control-allow-credentials') === 'true'),
          'Access-Control-Allow-Origin * with credentials',
        );
      }
    },
  },
  {
    id: 'cors.allowed-origin',
    section: 'headers',
    clause: '9.6',
    level: 'SHOULD',
    title:
      'the browser platform named by --origin gets its preflight (methods, USP headers, max-age) and actual requests answered',
    async run(ctx) {
      const origin = ctx.options.origin;
      if (!origin) return skip('no --origin given: the suite does not know which browser origin the business allows');
      const p = await preflight(ctx, origin);
      const allow = p.headers.get('access-control-allow-origin');
      expectThat(p.status >= 200 && p.status < 300, `preflight: ${describeAnswer(p)}`);
      expectThat(
        allow === origin || allow === '*',
        `preflight: Access-Control-Allow-Origin is ${JSON.stringify(allow)}, not ${origin}`,
      );
      expectThat(
        list(p.headers.get('access-control-allow-methods')).includes('post'),
        'preflight: POST is not among Access-Control-Allow-Methods',
      );
      const headers = list(p.headers.get('access-control-allow-headers'));
      const missing = headers.includes('*') ? [] : USP_REQUEST_HEADERS.filter((h) => !headers.includes(h));
      expectThat(missing.length === 0, `preflight: Access-Control-Allow-Headers lacks ${missing.join(', ')}`);
      expectThat(Number(p.headers.get('access-control-max-age')) > 0, 'preflight: no Access-Control-Max-Age');
      const a = await ctx.rest.post('/services/list', { pagination: { limit: 1 } }, { headers: { Origin: origin } });
      const actual = a.headers.get('access-control-allow-origin');
      expectThat(
        actual === origin || actual === '*',
        `POST /services/list from ${origin}: Access-Control-Allow-Origin is ${JSON.stringify(actual)}`,
      );
      return `${origin} is allowed`;
    },
  },
];
