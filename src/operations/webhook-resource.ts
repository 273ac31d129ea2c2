/**
 * The resource a platform principal hears its booking and waitlist events on over MCP
 * (`usp://webhooks/<name>`): a 2025-era session subscribes to it, a client of the stateless
 * 2026-07-28 revision listens to it (`subscriptions/listen`, through the `listen_for_events` row).
 * The name is an HMAC of the principal under a key of the business's own, kept in its store: a
 * principal is often public (a platform's key thumbprint, an API key's id), so a plain hash of it
 * could be computed by anyone; the keyed one is known only to whom the business hands it. Every
 * process sharing the store names a principal's resource alike.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/index.js';

export const WEBHOOK_RESOURCE_PREFIX = 'usp://webhooks/';

/** The store's key-value entry holding the key (hex). */
const KV_KEY = 'webhook_resource_key';

/** The business's key for naming webhook resources: made on first start, then read (get-or-create in one transaction). */
export async function loadWebhookResourceKey(store: Store): Promise<Uint8Array> {
  const hex = await store.transaction(async (tx) => {
    let v = await tx.kv.get(KV_KEY);
    if (!v) await tx.kv.set(KV_KEY, (v = randomBytes(32).toString('hex')));
    return v;
  });
  return Buffer.from(hex, 'hex');
}

/** Names kept per namer (a principal's name is asked on every call it makes); past it, the memo starts over. */
const NAMES_KEPT = 1000;

/**
 * The function naming a principal's webhook resource under `key` (HMAC-SHA-256, base64url: 43
 * characters). Each name is computed once and kept: every MCP answer to a principal names its resource.
 */
export function webhookResourceNamer(key: Uint8Array): (principal: string) => string {
  const k = Buffer.from(key);
  // Made on the first name asked for (most hosted businesses name none while loaded).
  let names: Map<string, string> | undefined;
  return (principal) => {
    names ??= new Map();
    let name = names.get(principal);
    if (name === undefined) {
      name = WEBHOOK_RESOURCE_PREFIX + createHmac('sha256', k).update(principal).digest('base64url');
      if (names.size >= NAMES_KEPT) names.clear();
      names.set(principal, name);
    }
    return name;
  };
}
