/**
 * An operation is defined once, here, and both doors are generated from its row: name, MCP tool
 * name, REST method and path, access tier, whether it changes state (idempotency) and accepts a
 * precondition (conditional write), its input schema and its handler.
 */
import type { z } from 'zod';
import type { AccessTier, Message, OAuthScope, ResourceKind } from '../../domain/index.js';
import type { OperationContext, PrepareContext } from './context.js';
import { ProtocolError } from './errors.js';

export type CapabilityKey =
  | 'dev.usp-protocol.services.catalog'
  | 'dev.usp-protocol.services.catalog.subscriptions'
  | 'dev.usp-protocol.services.availability'
  | 'dev.usp-protocol.services.bookings'
  | 'dev.usp-protocol.services.waitlist'
  | 'dev.usp-protocol.discovery.registry';

/** Our own extension capabilities, in our namespace (published by src/operations/core/extensions.ts). */
export type ExtensionKey = 'dev.usp-server.services.bookings';

/**
 * A class of rate limit (spec 10.2.2); each has its own tokens per minute. `public` covers the
 * anonymous tier, `reads` privileged reads and small writes, `holds` and `bookings` the writes that
 * reserve capacity; `registrations` and `registrations_total` are a registry's, per registering host
 * and for the whole registry.
 */
export type RateBucket = 'public' | 'reads' | 'holds' | 'bookings' | 'registrations' | 'registrations_total';

export interface RateRule<I = unknown> {
  bucket: RateBucket;
  /** Tokens one call takes (default 1): heavier calls cost more, from validated input. */
  cost?: (input: I) => number;
  /**
   * Subjects every caller of the operation shares, whoever and wherever it is, each counted in its
   * own bucket (the host a registration names, the registry as a whole): spam from many addresses
   * and keys is still bounded.
   */
  shared?: (input: I) => ReadonlyArray<{ bucket: RateBucket; subject: string }>;
}

export interface OperationResult {
  /** Members of the response beside `usp` and `messages` (e.g. `{ booking }`). */
  data: Record<string, unknown>;
  messages?: Message[];
  /** 200 for a business outcome; unset, the operation's row decides (`creates`, `empty`). */
  status?: 200 | 201;
}

/** A JSON Schema fragment. */
export type JsonSchema = Record<string, unknown>;

/** The buyer pages the REST door renders as HTML for a browser (spec 8.5.4, 8.5.5). */
export type BuyerPage =
  | 'checkout'
  | 'checkout_form'
  | 'booking_page'
  | 'calendar_file'
  | 'reminders_form'
  | 'subscribed_calendar'
  | 'waitlist_offer'
  | 'waitlist_offer_accept'
  | 'waitlist_offer_decline'
  | 'booking_quote'
  | 'booking_slots'
  | 'booking_cancel'
  | 'booking_move';

/**
 * What an operation does on the business's dashboard (its row's `dashboard`): the dashboard door
 * finds the operation behind each screen and button by this, never by name.
 */
export type DashboardAction =
  | 'bookings'
  | 'booking_detail'
  | 'confirm'
  | 'decline'
  | 'refund'
  | 'cancel'
  | 'complete'
  | 'no_show'
  | 'time_off_add'
  | 'schedule_changes'
  | 'schedule_change_remove'
  | 'waitlist'
  | 'deliveries'
  | 'delivery_retry'
  | 'mail_log'
  | 'figures'
  | 'exception_add'
  | 'api_keys'
  | 'api_key_create'
  | 'api_key_revoke'
  | 'signing_keys'
  | 'signing_key_rotate'
  | 'audit_log'
  | 'reschedule'
  | 'free_slots'
  | 'service_create'
  | 'service_update'
  | 'service_archive'
  | 'resource_create'
  | 'resource_update'
  | 'location_create'
  | 'location_update'
  | 'business_update'
  | 'settings_update'
  | 'categories'
  | 'category_create'
  | 'category_update'
  | 'category_delete'
  | 'walk_in'
  | 'client'
  | 'clients_by_name'
  | 'client_note'
  | 'buyer_export'
  | 'buyer_erase'
  | 'calendar_sync'
  | 'calendar_feed_url'
  | 'calendar_feed_rotate'
  | 'sign_in'
  | 'sign_out'
  | 'set_up_owner';

/**
 * The MCP Apps view (extension `io.modelcontextprotocol/ui`) that presents an operation's result in
 * a host that renders views: the slot picker for availability, the booking card for a booking's
 * results, the waitlist card for an entry's. The view shows what the result already says; the text
 * and structured content stay complete for every other client.
 */
export type AppView = 'slot_picker' | 'booking_card' | 'waitlist_card';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template with `{param}` segments, as in the spec's OpenAPI. */
  path: string;
  /** Where the non-path input comes from. */
  input: 'body' | 'query' | 'none';
}

export interface OperationDef<S extends z.ZodType = z.ZodType> {
  /** Stable name, verb-noun (e.g. `create_booking`). */
  name: string;
  /** MCP tool name (spec 9.2.1); absent for REST-only operations. */
  tool?: string;
  rest: RestRoute;
  access: AccessTier;
  capability: CapabilityKey;
  /** Changes state: idempotency keys are honoured and results stored for 24 h. */
  mutating: boolean;
  /** Accepts If-Match / _meta.usp.if_match (spec 5.6). */
  conditional: boolean;
  /** Needs a write transaction even when not mutating from the caller's view (lazy expiry). */
  writes: boolean;
  /**
   * The OAuth scopes of which an access token must carry one to call this operation (spec 10.2.4);
   * only privileged operations take one. Unset on a privileged row, `usp:booking` is required.
   */
  scopes?: readonly OAuthScope[];
  /** The existing resource a scoped operation addresses (per-resource authorization, credential scope). */
  resource?: { kind: ResourceKind; key: string };
  /**
   * Rate-limit class and cost of one call. Default: `public` for the public tier, `reads` for
   * privileged ones, each call costing 1; business-only calls (the business itself) are not limited.
   */
  rate?: RateRule<z.output<S>>;
  /** Success answers 201 Created (a new resource); business outcomes still answer 200. */
  creates?: boolean;
  /** Success answers 204 No Content (a removal with nothing to say); business outcomes still answer 200. */
  empty?: boolean;
  /** Ends or gives up something (a booking, a hold, a place in line): MCP `destructiveHint`. */
  destructive?: boolean;
  /** A state-changing call whose repetition has no further effect: MCP `idempotentHint` (reads always are). */
  idempotent?: boolean;
  /** Members of the result beside `usp` and `messages`: the MCP output schema. Required with `tool`. */
  output?: Record<string, JsonSchema>;
  /** A successful call from an MCP session subscribes that session to catalog change notifications. */
  subscribesSessionToCatalog?: boolean;
  /** The buyer page the REST door renders for a browser from this operation's answer. */
  page?: BuyerPage;
  /** The dashboard screen or button this operation serves. */
  dashboard?: DashboardAction;
  /**
   * The one door that serves this row (the dashboard's sign-in and sign-out forms; MCP's
   * `subscriptions/listen`): the REST door, the OpenAPI document and MCP's tools leave it out, so it
   * has no JSON route; `rest` names the form's route (or the MCP endpoint).
   */
  onlyDoor?: 'dashboard' | 'mcp_listen';
  /**
   * What the call's log lines show of its raw input (default: the input as sent): a row whose input
   * holds a secret (a password, a session token) or an email names what may be logged instead.
   */
  logInput?: (raw: unknown) => Record<string, unknown>;
  /** The `usp-server bookings` subcommand that runs this operation as the business. */
  cli?: string;
  /** Applies the payment provider's reports (the provider's webhook door and the payment worker call it). */
  paymentEvents?: boolean;
  /** The view a host that renders MCP Apps shows this tool's result in (`_meta.ui.resourceUri` on the tool). */
  view?: AppView;
  /** Our own extension capability (src/operations/core/extensions.ts) this operation belongs to: the profile advertises it. */
  extension?: ExtensionKey;
  /**
   * The names this operation answered to before it moved into our namespace, kept working until
   * `until`: the MCP tool is callable but not listed, the REST route is marked deprecated, and a call
   * through either carries a `deprecated_name` warning (and REST a `Deprecation` header, RFC 9745,
   * dated `since`, a YYYY-MM-DD date).
   */
  formerly?: { tool?: string; rest?: RestRoute; since: string; until: string };
  /** One line for the OpenAPI summary. */
  summary: string;
  input: S;
  /**
   * Work that must not hold the store: network fetches (a registry checking a profile URL). Runs
   * after authentication and before the transaction; its result reaches `handle` as `ctx.prepared`.
   */
  prepare?: (input: z.output<S>, ctx: PrepareContext) => Promise<unknown>;
  /** An operation of the registry role: it runs with no business (its context has no `biz`). */
  registry?: true;
  handle(input: z.output<S>, ctx: OperationContext): Promise<OperationResult>;
}

export function defineOperation<S extends z.ZodType>(def: OperationDef<S>): OperationDef<S> {
  return def;
}

/** What a registry operation runs against: a call's context without a business (the registry has none). */
export type RegistryContext = Omit<OperationContext, 'biz'>;

/** A registry operation: its handler is given no business, so it cannot read one (src/operations/core/scope.ts). */
export function defineRegistryOperation<S extends z.ZodType>(
  def: Omit<OperationDef<S>, 'handle' | 'registry'> & {
    handle(input: z.output<S>, ctx: RegistryContext): Promise<OperationResult>;
  },
): OperationDef<S> {
  return { ...def, registry: true };
}

/** Success: 200, or 201 / 204 when the row says the operation creates / answers with no content. */
export function ok(data: Record<string, unknown>): OperationResult {
  return { data };
}

/** A business outcome: HTTP 200 / MCP result with the message, and whatever data still applies. */
export function outcome(message: Message, data: Record<string, unknown> = {}): OperationResult {
  return { data, messages: [message], status: 200 };
}

/**
 * Defence in depth for the handlers of business-only operations: authentication already refuses
 * every platform, but a handler acts only for the business itself, whatever let the call through.
 */
export function requireBusiness(ctx: OperationContext): void {
  if (ctx.caller.business) return;
  throw new ProtocolError(
    'authentication_required',
    'Only the business itself may do this; authenticate with the business API key.',
    {
      detailCode: 'business_credential_required',
    },
  );
}

/**
 * The scopes an OAuth access token needs for an operation, any one of them: its row's, else
 * `usp:booking` for a privileged operation (closed by default); none for public and business-only
 * ones (a token is refused on the latter whatever it carries).
 */
export function scopesOf(op: OperationDef): readonly OAuthScope[] {
  if (op.access === 'public' || op.access === 'business_only') return [];
  return op.scopes && op.scopes.length > 0 ? op.scopes : ['usp:booking'];
}

/** The rate rule an operation runs under: its own, else its access tier's. */
export function rateRuleOf(op: OperationDef): RateRule<unknown> | undefined {
  if (op.rate) return op.rate as RateRule<unknown>;
  if (op.access === 'business_only') return undefined;
  return { bucket: op.access === 'public' ? 'public' : 'reads' };
}

/** The rows the JSON doors serve (REST routes, the OpenAPI document, MCP tools): all but those one door alone serves (`onlyDoor`). */
export function jsonDoorRows(operations: readonly OperationDef[]): OperationDef[] {
  return operations.filter((op) => op.onlyDoor === undefined);
}
