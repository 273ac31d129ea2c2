/** The business definition compiled once at start for fast lookups by the handlers. */
import { type BusinessDef, type ResourceDef, type ServiceDef, publishService, type PublishedService, findSlotTagClash } from '../domain/index.js';

/**
 * The business compiled for fast lookups. One object for the life of the process: when the stored
 * definition changes, its members are replaced at once (src/operations/live-business.ts).
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
   * Who takes the buyer's money online: the sandbox page (a sandbox only), Stripe, an external
   * checkout URL template, or nobody (services paid before the appointment cannot be booked).
   */
  payments: PaymentProviderKind;
  /** Development: http://127.0.0.1 callback URLs are accepted (--allow-loopback-profiles). */
  allowLoopbackUrls: boolean;
  /**
   * The public origin (no trailing slash) of profile endpoints and checkout links: the configured
   * public URL, else the address the server listens on once it does (the composition root sets it).
   */
  publicUrl: string;
  /** Whether that origin was configured (--public-url or settings.public_url) rather than guessed from the listener. */
  publicUrlConfigured: boolean;
  /** Whether this process sends the buyers' mail (a transport is configured); set by the composition root. */
  mailSent: boolean;
  /** The stored definition's version this was compiled from (0: not from the store). */
  definitionVersion: number;
}

export type PaymentProviderKind = 'sandbox' | 'stripe' | 'external' | 'none';

/** The provider when none is named: the checkout URL template if one is set, else the sandbox page in a sandbox, else none. */
export function defaultPaymentProvider(def: BusinessDef, sandbox: boolean): PaymentProviderKind {
  if (def.settings.checkout_url_template) return 'external';
  return sandbox ? 'sandbox' : 'none';
}

/** The public origin before the server listens anywhere (stdio MCP): where `serve` listens by default. */
const DEFAULT_PUBLIC_URL = 'http://localhost:8787';

/** Throws SlotTagClash when two resource combinations of the business would share a slot id tag. */
export function compileBusiness(def: BusinessDef, opts: { sandbox?: boolean; allowLoopbackUrls?: boolean; payments?: PaymentProviderKind } = {}): Business {
  const services = new Map(def.services.map((s) => [s.id, s] as const));
  const published = new Map(def.services.map((s) => [s.id, publishService(s, def)] as const));
  const resources = new Map(def.resources.map((r) => [r.id, r] as const));
  const clash = findSlotTagClash(def.services, resources);
  if (clash) throw clash;
  return {
    def,
    zone: def.business.timezone,
    services,
    published,
    resources,
    serviceOrder: def.services.map((s) => s.id),
    sandbox: opts.sandbox ?? false,
    payments: opts.payments ?? defaultPaymentProvider(def, opts.sandbox ?? false),
    allowLoopbackUrls: opts.allowLoopbackUrls ?? false,
    publicUrl: (def.settings.public_url ?? DEFAULT_PUBLIC_URL).replace(/\/$/, ''),
    publicUrlConfigured: def.settings.public_url !== undefined,
    mailSent: false,
    definitionVersion: 0,
  };
}
