/** The business definition compiled once at start for fast lookups by the handlers. */
import { PublicOrigin } from './public-origin.js';
import {
  type BusinessDef,
  type ResourceDef,
  type ServiceDef,
  paidBeforeAppointment,
  publishService,
  type PublishedService,
  findSlotTagClash,
} from '../domain/index.js';

/**
 * The business compiled for fast lookups: one snapshot of one stored definition version. A live
 * business (src/operations/live-business.ts) publishes a new, frozen snapshot when the stored
 * definition changes and never changes one it published: a call keeps the one it started with.
 */
export interface Business {
  def: BusinessDef;
  zone: string;
  services: ReadonlyMap<string, ServiceDef>;
  published: ReadonlyMap<string, PublishedService>;
  resources: ReadonlyMap<string, ResourceDef>;
  /** Services in catalog order. */
  serviceOrder: readonly string[];
  /** A sandbox: the built-in checkout page may stand in for a payment processor. */
  sandbox: boolean;
  /**
   * How the buyer's money is taken online: the sandbox page (a sandbox only), a payment provider's
   * adapter (`provider` says which), an external checkout URL template, or nobody (services paid
   * before the appointment cannot be booked).
   */
  payments: PaymentMode;
  /** The payment provider's facts, when `payments` is `provider`. */
  provider?: PaymentProviderFacts;
  /** Development: http://127.0.0.1 callback URLs are accepted (--allow-loopback-profiles). */
  allowLoopbackUrls: boolean;
  /**
   * The public origin (no trailing slash) of profile endpoints and checkout links: the definition's
   * public URL, else the business's origin (./public-origin.ts: the configured one, else the address
   * the server listens on once it does). Read from the origin, never written into the snapshot.
   */
  readonly publicUrl: string;
  /** Whether that origin was configured (--public-url or settings.public_url) rather than guessed from the listener. */
  readonly publicUrlConfigured: boolean;
  /** Whether this deployment sends the buyers' mail (a transport is configured): fixed when compiled. */
  mailSent: boolean;
  /** The stored definition's version this was compiled from (0: not from the store). */
  definitionVersion: number;
  /**
   * Services the business defines as active but cannot take right now, served as `suspended` (the
   * catalog's status for it, spec 3.3), each with the sentence that says why (profile, description,
   * refusals): a service paid online when booking while no payment provider is set up.
   */
  suspendedWhy: ReadonlyMap<string, string>;
  /**
   * The operator suspended the whole business (`ServerOptions.suspended`, `setSuspended`): every
   * service is served `suspended` with the reason, nothing can be booked; reads, cancellations and
   * the business's own administration go on. Absent while the business is open.
   */
  suspended?: BusinessSuspension;
}

/** Why an operator suspended a business: a reason said to buyers, platforms and models. */
export interface BusinessSuspension {
  readonly reason: string;
}

/** The sentence a suspended business's services, profile and refusals carry: it names the operator's reason. */
export function suspensionSentence(s: BusinessSuspension): string {
  const reason = s.reason.trim().replace(/[.\s]+$/, '');
  return `Not bookable right now: this business is suspended${reason ? ` (${reason})` : ''}; bookings already made can still be read and cancelled.`;
}

/** Why a service paid online when booking is suspended while the business has no payment provider. */
export const NO_ONLINE_PAYMENT =
  'Not bookable right now: it is paid online when booking, and this business has not set up online payment yet.';

/**
 * The services as served: one the business cannot take right now is `suspended`, with the reason at
 * the end of its description, so every read (list, lookup, feed, availability, holds) follows the
 * catalog's rule for a suspended service.
 */
function servedServices(services: readonly ServiceDef[], facts: ServingFacts, why: Map<string, string>): ServiceDef[] {
  const closed = facts.suspended ? suspensionSentence(facts.suspended) : undefined;
  return services.map((s) => {
    if ((s.status ?? 'active') !== 'active') return s;
    // The operator's suspension comes first: it says why for every service, paid or not.
    const reason = closed ?? (facts.payments === 'none' && paidBeforeAppointment(s) ? NO_ONLINE_PAYMENT : undefined);
    if (!reason) return s;
    why.set(s.id, reason);
    return { ...s, status: 'suspended' as const, description: withSentence(s.description, reason) };
  });
}

/** What decides how a business's services are served beside their definition: how it is paid, and whether it is suspended. */
export type ServingFacts = Pick<Business, 'payments' | 'suspended'>;

/**
 * The catalog as served for `def` under a compiled business's facts (its payment mode, its
 * suspension): what the stored catalog and its feed publish, at start, after an edit of the
 * definition and after a suspension, so the feed says what `get_service` says.
 */
export function servedCatalog(def: BusinessDef, facts: ServingFacts): Map<string, Record<string, unknown>> {
  return new Map(
    servedServices(def.services, facts, new Map()).map(
      (s) => [s.id, publishService(s, def) as unknown as Record<string, unknown>] as const,
    ),
  );
}

/** A description (a string, or `{ plain, markdown?, html? }`) with a sentence added at its end. */
function withSentence(d: ServiceDef['description'], sentence: string): ServiceDef['description'] {
  if (d === undefined) return sentence;
  if (typeof d === 'string') return `${d} ${sentence}`;
  const out = { ...d, plain: `${d.plain} ${sentence}` };
  if (d.markdown !== undefined) out.markdown = `${d.markdown} ${sentence}`;
  if (d.html !== undefined) out.html = `${d.html} <p>${sentence}</p>`;
  return out;
}

/** How the business takes money online; which provider, when it is one, is the business's `provider`. */
export type PaymentMode = 'none' | 'sandbox' | 'external' | 'provider';

/**
 * What the core asks of a payment provider by name (an adapter of `src/payments/` declares it): the
 * name its ids, events and webhook path are stored under, its name in words to people, and the
 * shortest and longest life its hosted checkout accepts (a session is made within them).
 */
export interface PaymentProviderFacts {
  readonly name: string;
  readonly label: string;
  readonly checkoutTtlMs: { readonly min: number; readonly max: number };
}

/** The payment choice of a process: a mode that needs no adapter, or the facts of the provider's adapter. */
export type PaymentProviderKind = Exclude<PaymentMode, 'provider'> | PaymentProviderFacts;

/** The provider when none is named: the checkout URL template if one is set, else the sandbox page in a sandbox, else none. */
export function defaultPaymentProvider(def: BusinessDef, sandbox: boolean): Exclude<PaymentMode, 'provider'> {
  if (def.settings.checkout_url_template) return 'external';
  return sandbox ? 'sandbox' : 'none';
}

/**
 * The checkout systems the business publishes (spec 8.2.1 `checkout_systems`): a page behind every
 * payment action's continue_url (`redirect`), and `embedded` (platforms charge the buyer and report
 * it with confirm-payment) in the sandbox, where no money moves, or when the business says so
 * (`settings.platform_payments`). The profile and confirm-payment read this one list.
 */
export function checkoutSystems(biz: Business): Array<'redirect' | 'embedded'> {
  return biz.payments === 'sandbox' || biz.def.settings.platform_payments ? ['redirect', 'embedded'] : ['redirect'];
}

/** How a definition is compiled: the deployment's facts, and the business's origin (read, never written). */
export interface CompileFacts {
  sandbox?: boolean;
  allowLoopbackUrls?: boolean;
  payments?: PaymentProviderKind;
  /** Where the business is reached; default: the default origin (a business compiled outside a server). */
  origin?: PublicOrigin;
  /** Whether this deployment sends the buyers' mail. */
  mailSent?: boolean;
  /** The operator suspended the business: nothing can be booked (see `Business.suspended`). */
  suspended?: BusinessSuspension;
}

/** Throws SlotTagClash when two resource combinations of the business would share a slot id tag. */
const NOTHING_SUSPENDED: ReadonlyMap<string, string> = new Map();

export function compileBusiness(def: BusinessDef, opts: CompileFacts = {}): Business {
  const choice = opts.payments ?? defaultPaymentProvider(def, opts.sandbox ?? false);
  const payments: PaymentMode = typeof choice === 'string' ? choice : 'provider';
  const suspendedWhy = new Map<string, string>();
  const suspended = opts.suspended ? Object.freeze({ reason: opts.suspended.reason }) : undefined;
  const served = servedServices(def.services, { payments, suspended }, suspendedWhy);
  const services = new Map(served.map((s) => [s.id, s] as const));
  const published = new Map(served.map((s) => [s.id, publishService(s, def)] as const));
  const resources = new Map(def.resources.map((r) => [r.id, r] as const));
  const clash = findSlotTagClash(def.services, resources);
  if (clash) throw clash;
  const origin = opts.origin ?? new PublicOrigin();
  const own = def.settings.public_url?.replace(/\/$/, '');
  const biz = {
    def,
    zone: def.business.timezone,
    services,
    published,
    resources,
    serviceOrder: def.services.map((s) => s.id),
    sandbox: opts.sandbox ?? false,
    payments,
    ...(typeof choice === 'string' ? {} : { provider: choice }),
    allowLoopbackUrls: opts.allowLoopbackUrls ?? false,
    publicUrlConfigured: own !== undefined || origin.configured,
    mailSent: opts.mailSent ?? false,
    definitionVersion: 0,
    // One empty map for every snapshot with nothing suspended (read only: the type says so).
    suspendedWhy: suspendedWhy.size > 0 ? suspendedWhy : NOTHING_SUSPENDED,
    ...(suspended ? { suspended } : {}),
  };
  return Object.defineProperties(biz, {
    [OWN_URL]: { value: own },
    [ORIGIN]: { value: origin },
    publicUrl: { get: publicUrlOf, enumerable: true },
  }) as unknown as Business;
}

const OWN_URL = Symbol('configured public url');
const ORIGIN = Symbol('public origin');

/**
 * `Business.publicUrl`: the configured one, else the origin's (the address listened on). One getter
 * for every snapshot: a getter of its own per snapshot (a closure) would give each a hidden class of
 * its own (V8 shares one only between objects whose accessors are the same functions).
 */
function publicUrlOf(this: { [OWN_URL]: string | undefined; [ORIGIN]: PublicOrigin }): string {
  return this[OWN_URL] ?? this[ORIGIN].get();
}
