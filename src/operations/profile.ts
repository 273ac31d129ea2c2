/**
 * The business profile served at /.well-known/usp (spec 8.2): who the business is, where its
 * REST and MCP doors are, what it can do, and how privileged calls authenticate.
 */
import { USP_VERSION } from './core/envelope.js';
import { checkoutSystems, suspensionSentence, type Business } from './business.js';
import { EXTENSIONS } from './core/extensions.js';
import { HEALTH_CAPABILITY, healthCapability, type ProfileHealth } from './profile-health.js';
import { OPERATIONS } from './table.js';
import { MAX_LOOKUP_IDS } from './catalog/lookup-services.js';

export interface ProfileOptions {
  /** Public origin, e.g. https://salon.example.com (no trailing slash). */
  baseUrl: string;
  /** Absolute URL of the MCP Streamable HTTP endpoint, when MCP is served. */
  mcpEndpoint?: string;
  sandbox: boolean;
  /** Mechanisms accepted for privileged operations. */
  mechanisms?: readonly string[];
  /** Proof algorithms accepted (popAlgorithms), published as `pop_algorithms`. */
  popAlgorithms?: readonly string[];
  /** JWKs of the business's webhook signing keys, when it signs. */
  keys?: Array<Record<string, unknown>>;
  /** The OAuth token endpoint (`client_credentials`), when the business runs an authorization server. */
  tokenEndpoint?: string;
  /** How the calendar sync stands, read when the profile is served (published as `dev.usp-server.health`). */
  health?: () => ProfileHealth | undefined;
}

const SPEC = 'https://usp-protocol.dev/specification';

/**
 * Older protocol versions this server still serves, each with the URI of its profile (spec 8.2.4).
 * It speaks one version, so the map is empty: published anyway, so a platform reads "none" rather
 * than "unknown".
 */
const OLDER_VERSIONS: Readonly<Record<string, string>> = {};
const SCHEMAS = 'https://usp-protocol.dev/schemas';

export function buildBusinessProfile(biz: Business, opts: ProfileOptions): Record<string, unknown> {
  const base = opts.baseUrl.replace(/\/$/, '');
  const bindings: Array<Record<string, unknown>> = [
    { version: USP_VERSION, transport: 'rest', endpoint: base, spec: SPEC, schema: `${SCHEMAS}/openapi/usp-rest.json` },
  ];
  if (opts.mcpEndpoint) {
    bindings.push({
      version: USP_VERSION,
      transport: 'mcp',
      endpoint: opts.mcpEndpoint,
      spec: SPEC,
      schema: `${SCHEMAS}/openrpc/usp-mcp.json`,
    });
  }
  const cap = (anchor: string, schema: string, extra: Record<string, unknown> = {}) => [
    { version: USP_VERSION, spec: `${SPEC}#${anchor}`, schema: `${SCHEMAS}/${schema}`, ...extra },
  ];
  const { name, timezone, currency, locations } = biz.def.business;
  const profile: Record<string, unknown> = {
    usp: {
      version: USP_VERSION,
      supported_versions: { ...OLDER_VERSIONS },
      services: { 'dev.usp-protocol.services': bindings },
      capabilities: {
        'dev.usp-protocol.services.catalog': cap('3-service-catalog', 'services/catalog.json', {
          search: true,
          max_lookup_ids: MAX_LOOKUP_IDS,
        }),
        'dev.usp-protocol.services.catalog.subscriptions': cap('3122-feed-subscriptions', 'rest_common.json', {
          extends: 'dev.usp-protocol.services.catalog',
        }),
        'dev.usp-protocol.services.availability': cap('4-availability', 'services/availability.json', { holds: true }),
        'dev.usp-protocol.services.bookings': cap(
          '5-booking-lifecycle',
          'services/booking.json',
          suspendedServices(biz),
        ),
        'dev.usp-protocol.services.waitlist': cap('111-waitlist-extension', 'services/waitlist.json', {
          extends: 'dev.usp-protocol.services.bookings',
        }),
        ...ourExtensions(),
        ...health(opts, timezone),
      },
      checkout_systems: checkoutSystems(biz),
      business: { name, timezone, currency, locations: locations.map((l) => ({ ...l })) },
    },
    authorization: {
      privileged_operations_require_authentication: !opts.sandbox,
      accepted_mechanisms: [...(opts.mechanisms ?? ['api_key'])],
      ...(opts.mechanisms?.includes('platform_key_pop')
        ? { pop_algorithms: [...(opts.popAlgorithms ?? ['EdDSA'])] }
        : {}),
      ...(opts.tokenEndpoint && opts.mechanisms?.includes('oauth2_bearer')
        ? { token_endpoint: opts.tokenEndpoint }
        : {}),
      ...(opts.sandbox
        ? {
            sandbox: true,
            note: 'Sandbox: privileged operations are accepted without platform authentication. Not for production use.',
          }
        : {}),
    },
  };
  if (opts.keys && opts.keys.length > 0) {
    profile.keys = opts.keys;
    profile.signing_keys = opts.keys;
  }
  return profile;
}

/**
 * Services the business defines but cannot take right now (served `suspended`), each with why: a
 * platform reading the profile learns it without booking into a refusal. Absent when there are none.
 * A business its operator suspended is named so too (`business_suspended`: the reason, the sentence).
 */
function suspendedServices(biz: Business): Record<string, unknown> {
  // The operator suspended the whole business: said once, with the reason, beside each service's entry.
  const whole = biz.suspended
    ? { business_suspended: { reason: biz.suspended.reason, message: suspensionSentence(biz.suspended) } }
    : {};
  if (biz.suspendedWhy.size === 0) return whole;
  return {
    ...whole,
    suspended_services: [...biz.suspendedWhy].map(([service_id, reason]) => ({ service_id, reason })),
  };
}

function health(opts: ProfileOptions, zone: string): Record<string, Array<Record<string, unknown>>> {
  const entry = healthCapability(opts.health?.(), zone);
  return entry ? { [HEALTH_CAPABILITY]: [entry] } : {};
}

/** Our extension capabilities that an operation of the table belongs to, in the profile's registry form (spec 2.4, 11). */
function ourExtensions(): Record<string, Array<Record<string, unknown>>> {
  const keys = [...new Set(OPERATIONS.flatMap((op) => (op.extension ? [op.extension] : [])))];
  return Object.fromEntries(keys.map((k) => [k, [{ ...EXTENSIONS[k] }]]));
}
