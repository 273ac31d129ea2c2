/**
 * Capability negotiation (spec 8.3): the capabilities a platform shares with us, once orphaned
 * extensions are pruned. A platform profile lists capability keys; an extension among them whose
 * base capability the platform does not list (waitlist without bookings, feed subscriptions
 * without the catalog) is orphaned and pruned (step 4), as is an extension whose base was itself
 * pruned. Answers then name only the capabilities left (step 5), and an operation whose capability
 * did not survive is refused as `capabilities_incompatible` like any other the platform lacks.
 */
import type { CapabilityKey } from './define.js';
import { EXTENSIONS } from './extensions.js';
import type { UspEnvelope } from './envelope.js';

/** The base capability each extension we serve extends (the profile's `extends`, spec 2.4). */
export const EXTENSION_BASES: Readonly<Record<string, CapabilityKey>> = {
  'dev.usp-protocol.services.catalog.subscriptions': 'dev.usp-protocol.services.catalog',
  'dev.usp-protocol.services.waitlist': 'dev.usp-protocol.services.bookings',
  ...Object.fromEntries(Object.entries(EXTENSIONS).map(([k, e]) => [k, e.extends])),
};

/** The platform's capability keys with every orphaned extension removed (repeated until none is left). */
export function prunedCapabilities(declared: readonly string[]): Set<string> {
  const kept = new Set(declared);
  let changed = true;
  while (changed) {
    changed = false;
    for (const k of [...kept]) {
      const base = EXTENSION_BASES[k];
      if (base && !kept.has(base)) {
        kept.delete(k);
        changed = true;
      }
    }
  }
  return kept;
}

/**
 * Whether a capability is shared: named itself, or (for a key below one the platform declared,
 * like `...catalog.subscriptions` under `...catalog`) covered by its parent, which the platform
 * declared and which survived pruning.
 */
export function sharesCapability(shared: ReadonlySet<string>, needed: string): boolean {
  if (shared.has(needed)) return true;
  for (const k of shared) if (needed.startsWith(`${k}.`)) return true;
  return false;
}

const WAITLIST = 'dev.usp-protocol.services.waitlist';

/**
 * An answer's data without the data of extensions the platform did not negotiate (8.3 step 4):
 * without the waitlist, no slot in state `waitlist` (a full slot is simply not offered) and no
 * `capacity.waitlist` flag. Returns `data` itself when nothing is pruned; never mutates it (catalog
 * answers share their objects between calls).
 */
export function prunedData(data: Record<string, unknown>, shared: ReadonlySet<string>): Record<string, unknown> {
  if (sharesCapability(shared, WAITLIST) || !namesWaitlist(data)) return data;
  return withoutWaitlist(data) as Record<string, unknown>;
}

/**
 * Whether a frozen value's text names the waitlist, by value. The core freezes what it shares between
 * answers all the way down (a service with its hint, presented slots: src/web/json.ts), so such a
 * value's text, and the answer to this, cannot change.
 */
const waitlistNamed = new WeakMap<object, boolean>();

/**
 * `JSON.stringify(data).includes('waitlist')`, with frozen members (or lists of frozen items) looked
 * at once per value. The word cannot span two members' texts (quotes, colons and commas lie between).
 */
function namesWaitlist(data: Record<string, unknown>): boolean {
  for (const key of Object.keys(data)) {
    const v = data[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (key.includes('waitlist')) return true;
    if (v === null || typeof v !== 'object') {
      if (JSON.stringify(v).includes('waitlist')) return true;
      continue;
    }
    const items = Array.isArray(v) ? v : [v];
    if (!items.every((x) => x !== null && typeof x === 'object' && Object.isFrozen(x)))
      return JSON.stringify(data).includes('waitlist');
    if (items.some((x: object) => frozenNamesWaitlist(x))) return true;
  }
  return false;
}

function frozenNamesWaitlist(v: object): boolean {
  let named = waitlistNamed.get(v);
  if (named === undefined) waitlistNamed.set(v, (named = JSON.stringify(v).includes('waitlist')));
  return named;
}

function withoutWaitlist(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    const kept = key === 'slots' ? v.filter((s) => (s as { state?: unknown } | null)?.state !== 'waitlist') : v;
    return kept.map((x) => withoutWaitlist(x));
  }
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (key === 'capacity' && k === 'waitlist') continue;
    out[k] = withoutWaitlist(x, k);
  }
  return out;
}

/** An answer's `usp` object holding only the capabilities the platform shares (step 5 after step 4). */
export function negotiatedEnvelope(env: UspEnvelope, shared: ReadonlySet<string>): UspEnvelope {
  const keys = Object.keys(env.capabilities);
  const kept = keys.filter((k) => sharesCapability(shared, k));
  if (kept.length === keys.length) return env;
  return { version: env.version, capabilities: Object.fromEntries(kept.map((k) => [k, env.capabilities[k]])) };
}
