/**
 * Discovery, envelopes and the total mapping of a binding: the profile as hosted (8.2), the `usp`
 * envelope on every answer (8.3 step 5), answers valid against the official schemas (9.1.5, 9.2.2),
 * and every operation of every advertised capability reachable on each advertised door (9.1.5, 9.2.1).
 */
import { describeAnswer } from '../../client/index.js';
import { expectThat, fail, skip, type Check, type CheckContext } from '../types.js';
import {
  businessNow,
  businessZone,
  expectRestSchema,
  isoDate,
  mcpArgs,
  requireCapability,
  services,
} from './support.js';

const PROFILE_SCHEMA = 'https://usp-protocol.dev/schemas/profile.json#/$defs/BusinessProfile';

/** The operations of each capability: REST route (method, template, a concrete path) and MCP tool. */
export const CAPABILITY_OPERATIONS: Record<string, Array<{ method: string; route: string; tool: string }>> = {
  'dev.usp-protocol.services.catalog': [
    { method: 'POST', route: '/services/list', tool: 'usp_services_list' },
    { method: 'GET', route: '/services/{service_id}', tool: 'usp_services_get' },
    { method: 'POST', route: '/services/lookup', tool: 'usp_services_lookup' },
    { method: 'GET', route: '/services/feed', tool: 'usp_services_feed' },
  ],
  'dev.usp-protocol.services.catalog.subscriptions': [
    { method: 'POST', route: '/services/feed/subscriptions', tool: 'usp_services_feed_subscribe' },
  ],
  'dev.usp-protocol.services.availability': [
    { method: 'POST', route: '/availability/query', tool: 'usp_availability_query' },
    { method: 'POST', route: '/availability/holds', tool: 'usp_availability_hold' },
    { method: 'DELETE', route: '/availability/holds/{hold_id}', tool: 'usp_availability_release' },
  ],
  'dev.usp-protocol.services.bookings': [
    { method: 'POST', route: '/bookings', tool: 'usp_bookings_create' },
    { method: 'GET', route: '/bookings/{booking_id}', tool: 'usp_bookings_get' },
    { method: 'PUT', route: '/bookings/{booking_id}', tool: 'usp_bookings_update' },
    { method: 'POST', route: '/bookings/{booking_id}/confirm', tool: 'usp_bookings_confirm' },
    { method: 'POST', route: '/bookings/{booking_id}/cancel', tool: 'usp_bookings_cancel' },
    { method: 'POST', route: '/bookings/{booking_id}/reschedule', tool: 'usp_bookings_reschedule' },
    { method: 'POST', route: '/bookings/{booking_id}/confirm-payment', tool: 'usp_bookings_confirm_payment' },
  ],
  'dev.usp-protocol.services.waitlist': [
    { method: 'POST', route: '/waitlist', tool: 'usp_waitlist_join' },
    { method: 'POST', route: '/waitlist/list', tool: 'usp_waitlist_list' },
    { method: 'GET', route: '/waitlist/{entry_id}', tool: 'usp_waitlist_get' },
    { method: 'DELETE', route: '/waitlist/{entry_id}', tool: 'usp_waitlist_leave' },
    { method: 'POST', route: '/waitlist/{entry_id}/accept', tool: 'usp_waitlist_accept' },
    { method: 'POST', route: '/waitlist/{entry_id}/decline', tool: 'usp_waitlist_decline' },
  ],
};

const concrete = (route: string) => route.replace(/\{[a-z_]+\}/g, 'conformance_unknown_id');

/**
 * The route is not served: a 405 or 501, or a 404 that names no missing resource. A 404 naming one
 * (`booking_not_found`, `entry_not_found`, ...) is the route answering for the unknown id in its path
 * (newer text 9.4.1).
 */
const routeMissing = (a: { status: number; body?: any }) =>
  (a.status === 404 && !/_not_found$/.test(String(a.body?.code ?? ''))) || a.status === 405 || a.status === 501;

export function restBinding(ctx: CheckContext): any | null {
  const bindings = ctx.profile?.usp?.services?.['dev.usp-protocol.services'];
  return Array.isArray(bindings) ? (bindings.find((b: any) => b?.transport === 'rest') ?? null) : null;
}

export function mcpBinding(ctx: CheckContext): any | null {
  const bindings = ctx.profile?.usp?.services?.['dev.usp-protocol.services'];
  return Array.isArray(bindings) ? (bindings.find((b: any) => b?.transport === 'mcp') ?? null) : null;
}

const requireMcp = (ctx: CheckContext) => {
  if (!ctx.mcp) skip('the profile advertises no MCP binding and no --stdio command was given');
  return ctx.mcp!;
};

export const discoveryChecks: Check[] = [
  {
    id: 'discovery.profile-hosting',
    section: 'discovery',
    clause: '8.2.2',
    level: 'MUST',
    title: 'the profile is served at /.well-known/usp as JSON, cacheable (public, max-age >= 60), without a redirect',
    async run(ctx) {
      const a = await ctx.rest.send('/.well-known/usp', { profile: null });
      expectThat(a.status === 200, `GET /.well-known/usp: ${describeAnswer(a)}`);
      expectThat(
        (a.headers.get('content-type') ?? '').startsWith('application/json'),
        `Content-Type is ${a.headers.get('content-type')}, not application/json`,
      );
      const cc = (a.headers.get('cache-control') ?? '').toLowerCase();
      const maxAge = Number(/max-age=(\d+)/.exec(cc)?.[1] ?? NaN);
      expectThat(
        cc.includes('public') && maxAge >= 60 && !/no-store|no-cache|private/.test(cc),
        `Cache-Control is ${JSON.stringify(cc)}`,
      );
      if (new URL(ctx.rest.base).protocol !== 'https:')
        return 'served over plain http: acceptable for a local check only (8.2.2 requires https)';
    },
  },
  {
    id: 'discovery.profile-schema',
    section: 'discovery',
    clause: '8.2.1',
    level: 'MUST',
    title: 'the profile is valid against the official BusinessProfile schema',
    async run(ctx) {
      expectThat(ctx.profile, 'the profile could not be read');
      if (!ctx.spec) skip('the official artifacts are absent (--spec)');
      const errors = ctx.spec!.validate(PROFILE_SCHEMA, ctx.profile);
      if (errors) fail(`not valid against ${PROFILE_SCHEMA}: ${errors}`);
    },
  },
  {
    id: 'discovery.authorization-policy',
    section: 'discovery',
    clause: '8.2.1',
    level: 'MUST',
    title:
      'a business with privileged operations publishes its authorization policy (require flag, accepted mechanisms)',
    async run(ctx) {
      const auth = ctx.profile?.authorization;
      expectThat(auth && typeof auth === 'object', 'the profile has no authorization object');
      expectThat(
        typeof auth.privileged_operations_require_authentication === 'boolean',
        'privileged_operations_require_authentication is not a boolean',
      );
      expectThat(
        Array.isArray(auth.accepted_mechanisms) && auth.accepted_mechanisms.length > 0,
        'accepted_mechanisms is empty or missing',
      );
      if (!auth.privileged_operations_require_authentication)
        return 'a sandbox: privileged operations accept unauthenticated calls (declares non-conformance for production)';
    },
  },
  {
    id: 'discovery.lookup-maximum',
    section: 'discovery',
    clause: '3.12.4, 3.13 item 3',
    level: 'SHOULD',
    title: 'the profile states how many ids one lookup accepts',
    async run(ctx) {
      requireCapability(ctx, 'dev.usp-protocol.services.catalog');
      const entry = (ctx.profile?.usp?.capabilities?.['dev.usp-protocol.services.catalog'] ?? [])[0] ?? {};
      const max = entry.max_lookup_ids ?? entry.lookup_max_ids ?? entry.lookup?.max_ids;
      expectThat(
        Number.isInteger(max) && max > 0,
        'the catalog capability entry states no lookup maximum (max_lookup_ids)',
      );
      expectThat(max >= 50, `the lookup maximum ${max} is under the 50 ids the spec requires`);
    },
  },
  {
    id: 'catalog.lookup-fifty',
    section: 'discovery',
    clause: '3.13 item 3',
    level: 'MUST',
    title: 'a lookup of 50 ids (one known, the rest unknown) answers 200 with the known service: partial success',
    async run(ctx) {
      requireCapability(ctx, 'dev.usp-protocol.services.catalog');
      const known = (await services(ctx))[0];
      expectThat(known, 'the catalog is empty');
      const ids = [known.id, ...Array.from({ length: 49 }, (_, i) => `svc_conformance_unknown_${i}`)];
      const a = await ctx.rest.post('/services/lookup', { ids });
      expectThat(a.status === 200, `lookup of 50 ids: ${describeAnswer(a)}`);
      expectThat(
        (a.body?.services ?? []).some((s: any) => s.id === known.id),
        'the known service is missing from the answer',
      );
      expectRestSchema(ctx, '/services/lookup', 'post', a);
    },
  },
];

/** Problems of a served OpenAPI document as the REST binding's description (empty: none). */
export function openApiProblems(doc: any): string[] {
  const problems: string[] = [];
  if (!doc?.components?.securitySchemes || Object.keys(doc.components.securitySchemes).length === 0)
    problems.push('no components.securitySchemes');
  if (!doc?.webhooks || Object.keys(doc.webhooks).length === 0) problems.push('no webhooks section');
  for (const [path, item] of Object.entries<any>(doc?.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item ?? {})) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || op?.deprecated) continue;
      const responses = op?.responses ?? {};
      const success = Object.entries<any>(responses).filter(([code]) => /^2\d\d$/.test(code) && code !== '204');
      if (success.some(([, r]) => !Object.values<any>(r?.content ?? {}).some((c) => c?.schema)))
        problems.push(`${method.toUpperCase()} ${path}: a success answer without a schema`);
      if (responses['201'] && !responses['200'])
        problems.push(`${method.toUpperCase()} ${path}: creates (201) but declares no 200 business-outcome answer`);
    }
  }
  return problems;
}

export const envelopeChecks: Check[] = [
  {
    id: 'discovery.openapi',
    section: 'discovery',
    clause: '9.1, 9.1.5',
    level: 'SHOULD',
    title:
      'a served OpenAPI document describes answers (schemas, the 200 outcome of creations), webhooks and security schemes',
    async run(ctx) {
      const a = await ctx.rest.send('/openapi.json', { profile: null });
      if (a.status !== 200 || !a.body?.openapi) skip('the business serves no /openapi.json');
      const problems = openApiProblems(a.body);
      if (problems.length) fail(`${problems.length} problem(s): ${problems.slice(0, 4).join('; ')}`);
    },
  },
  {
    id: 'envelope.rest',
    section: 'envelope',
    clause: '8.3 step 5',
    level: 'MUST',
    title: 'every REST answer carries usp {version, capabilities}, success, outcome and catalog reads alike',
    async run(ctx) {
      requireCapability(ctx, 'dev.usp-protocol.services.catalog');
      const svc = (await services(ctx))[0];
      expectThat(svc, 'the catalog is empty');
      const answers = [
        ['POST /services/list', await ctx.rest.post('/services/list', { pagination: { limit: 1 } })],
        [`GET /services/${svc.id}`, await ctx.rest.send(`/services/${encodeURIComponent(svc.id)}`)],
        // A business outcome (an unknown id in a body); an unknown id in a path is a 404 problem now (newer 9.4.1).
        ['POST /services/lookup', await ctx.rest.post('/services/lookup', { ids: ['conformance_unknown_id'] })],
      ] as const;
      for (const [what, a] of answers) {
        const usp = a.body?.usp;
        expectThat(a.status === 200, `${what}: ${describeAnswer(a)}`);
        expectThat(
          usp && typeof usp.version === 'string' && usp.capabilities && typeof usp.capabilities === 'object',
          `${what}: the answer has no usp envelope`,
        );
      }
    },
  },
  {
    id: 'envelope.rest-schemas',
    section: 'envelope',
    clause: '9.1.5',
    level: 'MUST',
    title: 'REST answers are valid against the official OpenAPI response schemas',
    async run(ctx) {
      if (!ctx.spec) skip('the official artifacts are absent (--spec)');
      requireCapability(ctx, 'dev.usp-protocol.services.catalog');
      const svc = (await services(ctx))[0];
      const list = await ctx.rest.post('/services/list', { pagination: { limit: 2 } });
      expectRestSchema(ctx, '/services/list', 'post', list);
      expectRestSchema(
        ctx,
        '/services/{service_id}',
        'get',
        await ctx.rest.send(`/services/${encodeURIComponent(svc.id)}`),
      );
      if (ctx.profile?.usp?.capabilities?.['dev.usp-protocol.services.availability']) {
        const now = await businessNow(ctx);
        const date = isoDate(now + 3 * 86_400_000, businessZone(ctx));
        expectRestSchema(
          ctx,
          '/availability/query',
          'post',
          await ctx.rest.post('/availability/query', { service_id: svc.id, start_date: date, end_date: date }),
        );
      }
      const bad = await ctx.rest.post('/availability/query', { start_date: 7 });
      expectRestSchema(ctx, '/availability/query', 'post', bad);
    },
  },
  {
    id: 'envelope.mcp',
    section: 'envelope',
    clause: '9.2.2',
    level: 'MUST',
    title: 'MCP tool results carry structuredContent with usp and messages, valid against the OpenRPC result schemas',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      requireCapability(ctx, 'dev.usp-protocol.services.catalog');
      const a = await mcp.call('usp_services_list', mcpArgs(ctx, { pagination: { limit: 1 } }));
      expectThat(
        !a.error && a.result,
        `usp_services_list: ${a.error ? `error ${a.error.code} ${a.error.message}` : 'no result'}`,
      );
      const sc = a.result.structuredContent;
      expectThat(sc && sc.usp && typeof sc.usp.version === 'string', 'structuredContent has no usp envelope');
      expectThat(Array.isArray(sc.messages), 'structuredContent has no messages array (an empty one on success)');
      if (ctx.spec) {
        const v = ctx.spec.mcpResult('usp_services_list');
        const errors = v ? v(a.result) : null;
        if (errors) fail(`usp_services_list result is not valid against the OpenRPC schema: ${errors}`);
      }
    },
  },
];

export const mappingChecks: Check[] = [
  {
    id: 'mapping.rest-total',
    section: 'mapping',
    clause: '9.1.5',
    level: 'MUST',
    title: 'every operation of every advertised capability has its REST route',
    async run(ctx) {
      if (!restBinding(ctx)) skip('the profile advertises no REST binding');
      const missing: string[] = [];
      for (const [cap, ops] of Object.entries(CAPABILITY_OPERATIONS)) {
        if (!ctx.profile?.usp?.capabilities?.[cap]) continue;
        for (const op of ops) {
          const a = await ctx.rest.send(concrete(op.route), {
            method: op.method,
            body: op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
          });
          if (routeMissing(a)) missing.push(`${op.method} ${op.route} (${a.status})`);
          if (a.status >= 500) fail(`${op.method} ${op.route} answered ${describeAnswer(a)} to an empty request`);
        }
      }
      if (missing.length) fail(`routes missing for advertised capabilities: ${missing.join(', ')}`);
    },
  },
  {
    id: 'mapping.mcp-total',
    section: 'mapping',
    clause: '9.2.1',
    level: 'MUST',
    title: 'tools/list offers every method of every advertised capability',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      const a = await mcp.request('tools/list', {});
      expectThat(Array.isArray(a.result?.tools), `tools/list: ${a.error ? a.error.message : 'no tools'}`);
      const names = new Set(a.result.tools.map((t: any) => t.name));
      const missing: string[] = [];
      for (const [cap, ops] of Object.entries(CAPABILITY_OPERATIONS)) {
        if (!ctx.profile?.usp?.capabilities?.[cap]) continue;
        for (const op of ops) if (!names.has(op.tool)) missing.push(op.tool);
      }
      if (missing.length) fail(`tools missing for advertised capabilities: ${missing.join(', ')}`);
    },
  },
];
