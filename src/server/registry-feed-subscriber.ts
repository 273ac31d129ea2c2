/**
 * Keeping the registry's index fresh through the businesses' catalog feed subscriptions (spec
 * 3.12.2). To a business the registry is a platform: it serves a platform profile of its own
 * (declaring the catalog-subscriptions capability and publishing its signing keys), subscribes at
 * each business whose profile offers subscriptions (`create_feed_subscription`, signed RFC 9421
 * under that platform profile) with a callback URL on the registry, and on each callback, verified
 * against the keys the business's own profile publishes (the feed door, src/bindings/registry-feeds,
 * and its rows in src/operations/registry/receive-catalog-event.ts and
 * get-registry-platform-profile.ts), marks the registration due and re-indexes it at once. This
 * file is the subscribing side. Businesses without subscriptions, and any failure here, fall back to
 * the re-index interval (at most 24 h).
 */
import {
  FEED_EVENTS_PATH,
  PLATFORM_PROFILE_PATH,
  USP_VERSION,
  feedSubscriptionKey,
  type Clock,
  type FeedSubscriptionNote,
  type Logger,
  type RegistryEnv,
} from '../operations/index.js';
import type { Store } from '../store/index.js';
import { contentDigest, pinnedPost, signRequest, uspRequiredComponents } from '../security/index.js';
import type { SigningKeyring } from '../webhooks/index.js';

const SUBSCRIPTIONS = 'dev.usp-protocol.services.catalog.subscriptions';
/** The subscriptions extension's base: a business prunes an extension declared without it (spec 8.3 step 4). */
const CATALOG = 'dev.usp-protocol.services.catalog';
/** Attempts to subscribe at one business before leaving it to the re-index interval. */
const MAX_TRIES = 5;
const kvKey = feedSubscriptionKey;

type SubscriptionNote = FeedSubscriptionNote;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a business profile declares the catalog feed subscriptions capability. */
function offersSubscriptions(profile: Record<string, unknown>): boolean {
  const usp = profile.usp;
  return isObject(usp) && isObject(usp.capabilities) && SUBSCRIPTIONS in usp.capabilities;
}

/**
 * A POST to an outbound URL: every resolved address vetted, the connection pinned to it, a deadline,
 * a 64 KiB answer cap.
 */
export type PostJson = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number; body: Record<string, unknown> }>;

export function pinnedJsonPost(allowLoopback: boolean, timeoutMs = 10_000): PostJson {
  const opts = { allowLoopback, timeoutMs, maxAnswerBytes: 64 * 1024, userAgent: 'usp-server registry' };
  return async (url, headers, body) => {
    const answer = await pinnedPost(url, headers, body, opts);
    let parsed: unknown = {};
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      parsed = {};
    }
    return { status: answer.status, body: isObject(parsed) ? parsed : {} };
  };
}

export interface FeedSubscriberDeps {
  store: Store;
  keyring: SigningKeyring;
  env: RegistryEnv;
  clock: Clock;
  log: Logger;
  /** The registry's public base URL (known once it listens). */
  baseUrl(): string;
  /** Re-index what is due now. */
  reindex(): void;
  post: PostJson;
}

export interface FeedSubscriber {
  /** RegistryEnv.indexed: a registration's catalog was just fetched. */
  indexed: NonNullable<RegistryEnv['indexed']>;
  /** Subscribe where pending now (tests; the timer calls it too). */
  subscribePending(): Promise<void>;
  /** The platform profile the subscriptions are made under (served by the registry's feed door). */
  platformProfile(): Record<string, unknown>;
  close(): void;
}

export function createFeedSubscriber(d: FeedSubscriberDeps): FeedSubscriber {
  const pending = new Map<string, { endpoint: string; tries: number }>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  const platformProfileUrl = () => `${d.baseUrl()}${PLATFORM_PROFILE_PATH}`;
  const platformProfile = () => ({
    usp: {
      version: USP_VERSION,
      capabilities: { [CATALOG]: [{ version: USP_VERSION }], [SUBSCRIPTIONS]: [{ version: USP_VERSION }] },
    },
    keys: d.keyring.published(d.clock.now()),
  });

  const subscribe = (id: string, endpoint: string) => subscribeTo(d, id, endpoint, platformProfileUrl());

  const subscribePending = async () => {
    for (const [id, p] of [...pending]) {
      let outcome: 'done' | 'retry';
      try {
        outcome = await subscribe(id, p.endpoint);
      } catch (err) {
        d.log.warn('could not subscribe to a business catalog feed', {
          id,
          error: String((err as Error).message ?? err),
        });
        outcome = 'retry';
      }
      if (outcome === 'done' || ++p.tries >= MAX_TRIES) pending.delete(id);
    }
    if (pending.size > 0) schedule(5_000);
  };

  function schedule(ms: number) {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (running) return schedule(ms);
      running = subscribePending().finally(() => (running = undefined));
    }, ms);
    timer.unref();
  }

  return {
    indexed(id, business) {
      if (!offersSubscriptions(business.profile)) return;
      pending.set(id, { endpoint: business.endpoint, tries: 0 });
      // After the write that told us commits.
      schedule(200);
    },
    subscribePending,
    platformProfile,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** Subscribes to one indexed business's catalog feed, signed as the platform; 'retry' when it could not yet. */
async function subscribeTo(
  d: FeedSubscriberDeps,
  id: string,
  endpoint: string,
  profileUrl: string,
): Promise<'done' | 'retry'> {
  const [row, raw] = await d.store.read(async (tx) => [await tx.registry.get(id), await tx.kv.get(kvKey(id))] as const);
  if (!row) return 'retry'; // not committed yet, or deleted: a few tries, then forgotten
  const note = raw ? (JSON.parse(raw) as SubscriptionNote) : null;
  if (note && note.endpoint === endpoint) return 'done';
  const url = `${endpoint}/services/feed/subscriptions`;
  const text = JSON.stringify({ callback_url: `${d.baseUrl()}${FEED_EVENTS_PATH}/${encodeURIComponent(id)}` });
  const bytes = new TextEncoder().encode(text);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'usp-agent': `profile="${profileUrl}"`,
    'content-digest': contentDigest(bytes),
  };
  const sig = signRequest({ method: 'POST', url, headers, body: bytes }, d.keyring.active(d.clock.now()), {
    components: uspRequiredComponents({ url, headers }),
    created: Math.floor(d.clock.now() / 1000),
  });
  const res = await d.post(
    url,
    { ...headers, 'signature-input': sig['Signature-Input'], signature: sig.Signature },
    text,
  );
  const sub = isObject(res.body.subscription) ? res.body.subscription : null;
  if (res.status !== 201 || !sub || typeof sub.id !== 'string') {
    const fields = { id, endpoint, status: res.status, code: res.body.code };
    d.log.warn('feed subscription refused; the registration is re-indexed on the interval', fields);
    return 'retry';
  }
  const fresh: SubscriptionNote = { subscription_id: sub.id, endpoint, created_ms: d.clock.now() };
  await d.store.transaction((tx) => tx.kv.set(kvKey(id), JSON.stringify(fresh)));
  d.log.info('subscribed to a business catalog feed', { id, subscription: sub.id });
  return 'done';
}
