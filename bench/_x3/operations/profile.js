/**
 * The business profile served at /.well-known/usp (spec 8.2): who the business is, where its
 * REST and MCP doors are, what it can do, and how privileged calls authenticate.
 */
import { USP_VERSION } from './envelope.js';
const SPEC = 'https://usp-protocol.dev/specification';
const SCHEMAS = 'https://usp-protocol.dev/schemas';
export function buildBusinessProfile(biz, opts) {
    const base = opts.baseUrl.replace(/\/$/, '');
    const bindings = [
        { version: USP_VERSION, transport: 'rest', endpoint: base, spec: SPEC, schema: `${SCHEMAS}/openapi/usp-rest.json` },
    ];
    if (opts.mcpEndpoint) {
        bindings.push({ version: USP_VERSION, transport: 'mcp', endpoint: opts.mcpEndpoint, spec: SPEC, schema: `${SCHEMAS}/openrpc/usp-mcp.json` });
    }
    const cap = (anchor, schema, extra = {}) => [
        { version: USP_VERSION, spec: `${SPEC}#${anchor}`, schema: `${SCHEMAS}/${schema}`, ...extra },
    ];
    const { name, timezone, currency, locations } = biz.def.business;
    const profile = {
        usp: {
            version: USP_VERSION,
            services: { 'dev.usp-protocol.services': bindings },
            capabilities: {
                'dev.usp-protocol.services.catalog': cap('3-service-catalog', 'services/catalog.json', { search: true }),
                'dev.usp-protocol.services.catalog.subscriptions': cap('3122-feed-subscriptions', 'rest_common.json', {
                    extends: 'dev.usp-protocol.services.catalog',
                }),
                'dev.usp-protocol.services.availability': cap('4-availability', 'services/availability.json', { holds: true }),
                'dev.usp-protocol.services.bookings': cap('5-booking-lifecycle', 'services/booking.json'),
                'dev.usp-protocol.services.waitlist': cap('111-waitlist-extension', 'services/waitlist.json', {
                    extends: 'dev.usp-protocol.services.bookings',
                }),
            },
            checkout_systems: ['redirect'],
            business: { name, timezone, currency, locations: locations.map((l) => ({ ...l })) },
        },
        authorization: {
            privileged_operations_require_authentication: !opts.sandbox,
            accepted_mechanisms: [...(opts.mechanisms ?? ['api_key'])],
            ...(opts.mechanisms?.includes('platform_key_pop') ? { pop_algorithms: opts.allowEs256 ? ['EdDSA', 'ES256'] : ['EdDSA'] } : {}),
            ...(opts.sandbox
                ? { sandbox: true, note: 'Sandbox: privileged operations are accepted without platform authentication. Not for production use.' }
                : {}),
        },
    };
    if (opts.keys && opts.keys.length > 0) {
        profile.keys = opts.keys;
        profile.signing_keys = opts.keys;
    }
    return profile;
}
//# sourceMappingURL=profile.js.map