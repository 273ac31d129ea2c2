/**
 * Read-only protocol checks: DST days in the business's zone (4.1), pagination (9.1.2), the two
 * error families on both doors (9.4), version negotiation (8.4) and capability negotiation (8.3),
 * and the transport SHOULDs (rate-limit headers, HSTS, CORS).
 */
import { createPopKey, dpopProof } from '../../client/index.js';
import { describeAnswer, messageCodes } from '../../client/index.js';
import { NEWER_VERSION, OLDER_VERSION, extensionBases } from '../platform.js';
import { expectThat, fail, skip, type Check, type CheckContext } from '../types.js';
import {
  businessNow,
  businessZone,
  isoDate,
  mcpArgs,
  requireCapability,
  servedUnknownBooking,
  services,
} from './support.js';

const CATALOG = 'dev.usp-protocol.services.catalog';
const AVAIL = 'dev.usp-protocol.services.availability';
const WAITLIST = 'dev.usp-protocol.services.waitlist';

/** The zone's UTC offset at an instant, in minutes. */
function offsetMinutes(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(
    new Date(ms),
  );
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : 0;
}

function offsetOf(iso: string): number | null {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  if (iso.endsWith('Z')) return 0;
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : null;
}

/** The first day after `from` on which the zone's offset changes (searched a year ahead), or null. */
export function nextTransitionDay(zone: string, from: number): number | null {
  let prev = offsetMinutes(zone, from);
  for (let t = from + 86_400_000; t < from + 370 * 86_400_000; t += 86_400_000) {
    const o = offsetMinutes(zone, t);
    if (o !== prev) return t - 43_200_000;
    prev = o;
  }
  return null;
}

const requireMcp = (ctx: CheckContext) => {
  if (!ctx.mcp) skip('no MCP binding advertised and no --stdio command');
  return ctx.mcp!;
};

/** A platform profile variant is used only if the business fetches profiles; else the check skips. */
export async function withVariant(
  ctx: CheckContext,
  name: 'newer' | 'older' | 'no-capabilities' | 'orphaned' | 'base-only',
  call: (profile: string) => Promise<{ status: number; body: any }>,
) {
  const before = ctx.platform.fetches(name);
  const a = await call(ctx.platform.variant(name));
  if (ctx.platform.fetches(name) === before) {
    skip(
      a.status === 400 && a.body?.code === 'invalid_profile_url'
        ? 'the business refuses loopback platform profiles'
        : 'the business did not fetch the platform profile on this call (a sandbox answers without it)',
    );
  }
  return a;
}

/**
 * A privileged read presenting `profile`. Where the business authenticates platforms, it carries a
 * proof by a key of its own: a business binds a key to the first profile it presented (8.2.3), so
 * each profile variant gets a fresh key.
 */
function privilegedProbe(ctx: CheckContext, profile: string, path = '/bookings/conformance_unknown_id') {
  const headers: Record<string, string> = ctx.sandbox
    ? {}
    : { DPoP: dpopProof(createPopKey(), 'GET', ctx.rest.url(path)) };
  return ctx.rest.send(path, { profile, headers });
}

export const protocolChecks: Check[] = [
  {
    id: 'dst.offsets',
    section: 'dst',
    clause: '4.1',
    level: 'MUST',
    title:
      "slot instants carry the business zone's offset at that instant (the next DST change when within the booking window)",
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      const zone = businessZone(ctx);
      const now = await businessNow(ctx);
      const svc =
        (await services(ctx)).find((s) => (s.status ?? 'active') === 'active' && s.type === 'appointment') ??
        (await services(ctx))[0];
      const change = nextTransitionDay(zone, now);
      const inWindow = change !== null && change - now < 55 * 86_400_000;
      const day = isoDate(inWindow ? change! : now + 2 * 86_400_000, zone);
      const a = await ctx.rest.post('/availability/query', { service_id: svc.id, start_date: day, end_date: day });
      expectThat(a.status === 200, `availability on ${day}: ${describeAnswer(a)}`);
      const slots = a.body?.slots ?? [];
      if (slots.length === 0) skip(`no slots on ${day}`);
      for (const s of slots) {
        const off = offsetOf(s.start);
        const want = offsetMinutes(zone, Date.parse(s.start));
        if (off !== want)
          fail(`slot ${s.id} starts ${s.start}: offset ${off} min, the zone ${zone} is at ${want} min then`);
        if (isoDate(Date.parse(s.start), zone) !== day) fail(`slot ${s.start} is not on ${day} in ${zone}`);
      }
      return inWindow ? `checked the DST change day ${day}` : `no DST change within the booking window; checked ${day}`;
    },
  },
  {
    id: 'pagination.services-list',
    section: 'pagination',
    clause: '9.1.2',
    level: 'MUST',
    title: 'following next cursors with limit 1 visits every service once, and has_more ends it',
    async run(ctx) {
      requireCapability(ctx, CATALOG);
      const all = await services(ctx);
      const seen: string[] = [];
      let cursor: string | null | undefined;
      for (let i = 0; i <= all.length + 1; i++) {
        const a = await ctx.rest.post('/services/list', { pagination: { limit: 1, ...(cursor ? { cursor } : {}) } });
        expectThat(a.status === 200 && Array.isArray(a.body?.services), `page ${i + 1}: ${describeAnswer(a)}`);
        expectThat(a.body.services.length <= 1, `limit 1 answered ${a.body.services.length} services`);
        seen.push(...a.body.services.map((s: any) => s.id));
        const p = a.body.pagination ?? {};
        cursor = p.next_cursor ?? p.cursor;
        if (!p.has_more) break;
        expectThat(cursor, 'has_more is true but no cursor is given');
      }
      expectThat(new Set(seen).size === seen.length, `a service came twice: ${seen.join(', ')}`);
      expectThat(seen.length === all.length, `pages gave ${seen.length} services, the list has ${all.length}`);
    },
  },
  {
    id: 'pagination.feed-null-cursor',
    section: 'pagination',
    clause: '3.12.2',
    level: 'MUST',
    title: 'usp_services_feed accepts cursor: null (the official params allow it)',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      requireCapability(ctx, CATALOG);
      const a = await mcp.call('usp_services_feed', mcpArgs(ctx, { cursor: null }));
      expectThat(!a.error, `cursor null: error ${a.error?.code} ${a.error?.data?.code ?? a.error?.message}`);
    },
  },
  {
    id: 'errors.rest-protocol',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: 'a malformed request answers 400 invalid_request as an RFC 9457 problem',
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      const a = await ctx.rest.post('/availability/query', '{"service_id": ', {});
      expectThat(a.status === 400, `a body that is not JSON: ${describeAnswer(a)}`);
      expectThat(
        (a.headers.get('content-type') ?? '').includes('application/problem+json'),
        `Content-Type ${a.headers.get('content-type')}`,
      );
      expectThat(typeof a.body?.type === 'string' && a.body?.status === 400, 'the problem has no type or status');
      const missing = await ctx.rest.post('/availability/query', {});
      expectThat(missing.status === 400, `a missing required field: ${describeAnswer(missing)}`);
    },
  },
  {
    id: 'errors.rest-outcome',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: 'a business outcome (an unknown service) is HTTP 200 with messages[], never a 4xx',
    async run(ctx) {
      requireCapability(ctx, AVAIL);
      const now = await businessNow(ctx);
      const day = isoDate(now + 2 * 86_400_000, businessZone(ctx));
      const a = await ctx.rest.post('/availability/query', {
        service_id: 'svc_conformance_unknown',
        start_date: day,
        end_date: day,
      });
      expectThat(
        a.status === 200 && messageCodes(a.body).length > 0 && a.body?.usp,
        `unknown service: ${describeAnswer(a)}`,
      );
    },
  },
  {
    id: 'errors.no-server-error',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: 'bad input never answers a 5xx (server_error is for faults, not for input)',
    async run(ctx) {
      const probes: Array<[string, unknown]> = [
        ['/services/list', { pagination: { limit: -1 } }],
        ['/services/list', []],
        ['/availability/query', { service_id: 7, start_date: '2026-13-45', end_date: null }],
        ['/availability/holds', { service_id: {}, slot_id: 'x'.repeat(2000) }],
        ['/bookings', { service_id: 'svc', slot_id: 'slot', buyer: 'nobody' }],
      ];
      for (const [path, body] of probes) {
        const a = await ctx.rest.post(path, body);
        if (a.status >= 500) fail(`POST ${path} ${JSON.stringify(body).slice(0, 60)}: ${describeAnswer(a)}`);
      }
    },
  },
  {
    id: 'errors.mcp-protocol',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: 'on MCP a malformed call is a JSON-RPC error -32600 whose data.code is in the official enum',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      requireCapability(ctx, AVAIL);
      const a = await mcp.call('usp_availability_query', mcpArgs(ctx, { start_date: 7 }));
      expectThat(
        a.error,
        `a malformed call answered a result${a.result?.isError ? ' (isError)' : ''}, not a JSON-RPC error`,
      );
      expectThat(a.error!.code === -32600, `code ${a.error!.code}, expected -32600`);
      if (ctx.spec)
        expectThat(
          ctx.spec.errorCodes.has(a.error!.data?.code),
          `data.code ${JSON.stringify(a.error!.data?.code)} is not in the official enum`,
        );
    },
  },
  {
    id: 'errors.mcp-outcome',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: 'on MCP a business outcome is a result with structuredContent.messages[], not a JSON-RPC error',
    async run(ctx) {
      const mcp = requireMcp(ctx);
      requireCapability(ctx, CATALOG);
      // An unknown id in the body (a lookup) is an outcome; in the path (usp_services_get) it is the 404 error of the newer text's 9.4.1.
      const a = await mcp.call('usp_services_lookup', mcpArgs(ctx, { ids: ['svc_conformance_unknown'] }));
      expectThat(
        !a.error,
        `lookup of an unknown service: JSON-RPC error ${a.error?.code} ${a.error?.data?.code ?? ''}`,
      );
      expectThat(messageCodes(a.result?.structuredContent).length > 0, 'the result has no messages[]');
    },
  },
  {
    id: 'errors.mcp-unknown-tool',
    section: 'errors',
    clause: '9.4',
    level: 'MUST',
    title: "an unknown tool is a JSON-RPC error whose data.code, when present, is one of the official enum's",
    async run(ctx) {
      const mcp = requireMcp(ctx);
      const a = await mcp.call('usp_conformance_no_such_tool', mcpArgs(ctx, {}));
      expectThat(a.error, 'an unknown tool answered a result');
      const code = a.error!.data?.code;
      if (ctx.spec && code !== undefined)
        expectThat(ctx.spec.errorCodes.has(code), `data.code ${JSON.stringify(code)} is not in the official enum`);
    },
  },
  {
    id: 'versioning.newer-refused',
    section: 'versioning',
    clause: '8.4',
    level: 'MUST',
    title: `a platform declaring a newer version (${NEWER_VERSION}) gets version_unsupported`,
    async run(ctx) {
      const a = await withVariant(ctx, 'newer', (p) => privilegedProbe(ctx, p));
      expectThat(
        a.status === 400 &&
          (a.body?.code === 'version_unsupported' || String(a.body?.type).endsWith('/version-unsupported')),
        `newer platform: ${describeAnswer(a as any)}`,
      );
    },
  },
  {
    id: 'versioning.older-served',
    section: 'versioning',
    clause: '8.4',
    level: 'MUST',
    title: `a platform declaring an older version (${OLDER_VERSION}) is served`,
    async run(ctx) {
      const a = await withVariant(ctx, 'older', (p) => privilegedProbe(ctx, p));
      expectThat(servedUnknownBooking(a), `older platform: ${describeAnswer(a as any)}`);
    },
  },
  {
    id: 'negotiation.empty-intersection',
    section: 'versioning',
    clause: '8.3 step 6',
    level: 'MUST',
    title: 'a platform declaring capabilities {} shares none: capabilities_incompatible',
    async run(ctx) {
      const a = await withVariant(ctx, 'no-capabilities', (p) => privilegedProbe(ctx, p));
      expectThat(
        a.status === 200 && messageCodes(a.body).includes('capabilities_incompatible'),
        `capabilities {}: ${describeAnswer(a as any)}`,
      );
    },
  },
  {
    id: 'negotiation.orphaned-extension',
    section: 'versioning',
    clause: '8.3 step 4',
    level: 'MUST',
    title:
      'an extension declared without its base is pruned: a waitlist read from such a platform is capabilities_incompatible and names neither',
    async run(ctx) {
      requireCapability(ctx, WAITLIST);
      const bases = extensionBases(ctx.profile);
      if (!bases[WAITLIST]) skip(`the profile does not say what ${WAITLIST} extends`);
      const a = await withVariant(ctx, 'orphaned', (p) => privilegedProbe(ctx, p, '/waitlist/conformance_unknown_id'));
      const named = Object.keys(a.body?.usp?.capabilities ?? {});
      const pruned = named.filter((k) => k in bases || Object.values(bases).flat().includes(k));
      expectThat(
        pruned.length === 0,
        `the answer's usp.capabilities names ${pruned.join(', ')}, which the platform does not share once orphans are pruned`,
      );
      expectThat(
        a.status === 200 && messageCodes(a.body).includes('capabilities_incompatible'),
        `waitlist without bookings: ${describeAnswer(a as any)}`,
      );
    },
  },
  {
    id: 'headers.ratelimit',
    section: 'headers',
    clause: '10.2.2',
    level: 'SHOULD',
    title:
      'answers state the rate limit and what is left of it (RateLimit-Policy with RateLimit, or RateLimit-Limit/-Remaining)',
    async run(ctx) {
      const a = await ctx.rest.post('/services/list', { pagination: { limit: 1 } });
      const has = (n: string) => a.headers.get(n) !== null;
      expectThat(
        [...a.headers.keys()].some((n) => n.toLowerCase().startsWith('ratelimit')),
        'no RateLimit header on POST /services/list',
      );
      expectThat(
        (has('ratelimit-policy') && /;\s*r=\d+/.test(a.headers.get('ratelimit') ?? '')) || has('ratelimit-remaining'),
        'the limit is stated but not what is left of it (no RateLimit field with r=, no RateLimit-Remaining)',
      );
    },
  },
  {
    id: 'headers.hsts',
    section: 'headers',
    clause: '10.2.1',
    level: 'SHOULD',
    title: 'over https, Strict-Transport-Security is sent',
    async run(ctx) {
      if (new URL(ctx.rest.base).protocol !== 'https:') skip('served over http');
      const a = await ctx.rest.send('/.well-known/usp', { profile: null });
      expectThat(a.headers.get('strict-transport-security'), 'no Strict-Transport-Security header');
    },
  },
];
