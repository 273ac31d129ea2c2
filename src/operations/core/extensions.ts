/**
 * What this server adds to the protocol, in its own namespace. The spec keeps `dev.usp-protocol.*`
 * (capabilities, and the `dev.usp-protocol/` `_meta` keys), the `usp_` tool prefix and the
 * protocol's path families for itself (spec 2.5, 8.2); ours are `dev.usp-server.*` capabilities
 * whose spec and schema live on our own origin (spec 2.5, "Spec URL binding"), `uspserver_` tools,
 * `/ext/usp-server/...` paths and `dev.usp-server/` `_meta` keys. An operation of ours names its
 * capability on its row (`extension`); the profile advertises each one a row uses.
 */
import { warningMessage, type Message } from '../../domain/index.js';
import type { CapabilityKey, ExtensionKey, OperationDef } from './define.js';

/** Our reverse-domain namespace (the domain usp-server.dev), for capabilities and `_meta` keys. */
export const OUR_NAMESPACE = 'dev.usp-server';
const ORIGIN = 'https://usp-server.dev';

export interface ExtensionCapability {
  version: string;
  spec: string;
  schema: string;
  extends: CapabilityKey;
}

/**
 * Our extension capabilities as the profile publishes them. `dev.usp-server.services.bookings`
 * extends bookings with the linked buyer's list of bookings (`uspserver_bookings_list`,
 * `GET /ext/usp-server/bookings`), the read-only price of a change (`uspserver_bookings_quote`), a
 * fresh payment link for a booking whose link lapsed (`uspserver_bookings_renew_payment`) and,
 * on MCP, the webhook resource named in `_meta["dev.usp-server/webhook_resource"]`.
 */
export const EXTENSIONS: Readonly<Record<ExtensionKey, ExtensionCapability>> = {
  'dev.usp-server.services.bookings': {
    version: '2026-12-01',
    spec: `${ORIGIN}/extensions/bookings`,
    schema: `${ORIGIN}/schemas/extensions/bookings.json`,
    extends: 'dev.usp-protocol.services.bookings',
  },
};

/** `_meta` keys of ours in MCP results and notifications (MCP's `prefix/name` form). */
export const META_WEBHOOK_RESOURCE = `${OUR_NAMESPACE}/webhook_resource`;
export const META_WEBHOOK = `${OUR_NAMESPACE}/webhook`;

/**
 * The warning a call through an operation's former name carries (`formerly` on its row): the name
 * still works for this release and tells the caller the one to use.
 */
export function deprecatedNameWarning(op: OperationDef, calledAs: string, use: string): Message {
  const until = op.formerly?.until ?? 'the next release';
  return warningMessage('deprecated_name', `${calledAs} is deprecated and answers only until ${until}; use ${use}.`);
}
