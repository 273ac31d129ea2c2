/**
 * A catalog event a subscribed business sends to its callback (spec 3.12.2). The event is checked
 * against the keys the business's own profile publishes (RFC 9421) before anything is read or
 * written; a verified event marks the registration due so that it is re-indexed at once.
 */
import type { JsonWebKey } from 'node:crypto';
import { z } from 'zod';
import { findKey, verifyRequestSignature } from '../../security/index.js';
import { defineRegistryOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { registryEnv } from './env-of.js';
import { FEED_EVENTS_PATH, feedSubscriptionKey, type FeedSubscriptionNote } from './feed-paths.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const REGISTRATION_ID = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);
const unknownRegistration = (detail: string) =>
  new ProtocolError('not_found', detail, { detailCode: 'registration_not_found' });

export const receiveCatalogEvent = defineRegistryOperation({
  name: 'receive_catalog_event',
  rest: { method: 'POST', path: `${FEED_EVENTS_PATH}/{id}`, input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: false,
  conditional: false,
  writes: true,
  summary:
    'A catalog event from a subscribed business: verified against its published keys, then its registration is re-indexed.',
  input: z
    .object({
      id: REGISTRATION_ID.describe('The registration the callback URL names.'),
      subscription_id: z.string().max(200).optional(),
    })
    .passthrough(),
  async prepare(inp, ctx) {
    const [row, raw] = await ctx.read(
      async (tx) => [await tx.registry.get(inp.id), await tx.kv.get(feedSubscriptionKey(inp.id))] as const,
    );
    if (!row || !raw) throw unknownRegistration('No subscribed registration at this address.');
    const http = ctx.http;
    if (!http)
      throw new ProtocolError(
        'signature_invalid',
        'The event is not signed with a key the registered business publishes.',
      );
    const env = registryEnv(ctx.env);
    try {
      await verifyRequestSignature(
        { method: http.method, url: http.url, headers: http.headers, body: http.body ?? new Uint8Array() },
        async (kid) => {
          const doc = await env.fetchJson(row.profile_url);
          const keys = (name: string) =>
            Array.isArray(doc[name]) ? ((doc[name] as unknown[]).filter(isObject) as JsonWebKey[]) : [];
          return findKey({ keys: keys('keys'), signing_keys: keys('signing_keys') }, kid);
        },
        {
          now: ctx.now,
          maxAgeSeconds: 300,
          requiredComponents: () => ['@method', '@authority', '@path', 'content-digest', 'content-type'],
        },
      );
    } catch (err) {
      env.log?.('catalog event refused: not signed by the registered business', {
        id: inp.id,
        error: String((err as Error).message ?? err),
      });
      throw new ProtocolError(
        'signature_invalid',
        'The event is not signed with a key the registered business publishes.',
      );
    }
    return JSON.parse(raw) as FeedSubscriptionNote;
  },
  async handle(inp, ctx) {
    const note = ctx.prepared as FeedSubscriptionNote;
    if (inp.subscription_id !== undefined && inp.subscription_id !== note.subscription_id) {
      throw unknownRegistration("That subscription is not this registration's.");
    }
    const current = await ctx.tx.registry.get(inp.id);
    if (!current) throw unknownRegistration('No subscribed registration at this address.');
    await ctx.tx.registry.put({ ...current, next_index_ms: Math.min(current.next_index_ms, ctx.now) });
    return ok({ received: true });
  },
});
