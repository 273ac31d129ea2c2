/**
 * Reading a calendar over the network through the pinned request (src/security): an iCalendar feed
 * with a conditional GET (If-None-Match / If-Modified-Since), or a CalDAV collection through tsdav
 * with the same pinned request underneath. Every answer is capped in size and in time.
 */
import { pinnedRequest, type PinnedRequestOptions } from '../security/index.js';
import type { CalendarFeed } from './sources.js';

export interface FetchLimits {
  allowLoopback: boolean;
  /** Default 10 MB: a larger answer is cut off and the feed reported. */
  maxBytes: number;
  /** Default 30 s for the whole answer: a body that never ends is cut off. */
  timeoutMs: number;
  /**
   * Default 10,000 (`--calendar-max-events`): a calendar holding more events is refused whole (not
   * read, its last busy times kept, the failure on its state and in the health), since reading it
   * costs memory in proportion, and a cut list would free time that is busy.
   */
  maxEvents: number;
  lookup?: (host: string) => Promise<string[]>;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  allowLoopback: false,
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxEvents: 10_000,
};

const USER_AGENT = 'usp-server calendar sync';

function requestOptions(l: FetchLimits): PinnedRequestOptions {
  return {
    allowLoopback: l.allowLoopback,
    timeoutMs: l.timeoutMs,
    maxAnswerBytes: l.maxBytes,
    userAgent: USER_AGENT,
    lookup: l.lookup,
  };
}

/** A `fetch` for tsdav that goes through the pinned request (no redirects, vetted addresses, caps). */
export function pinnedFetch(l: FetchLimits, o: { failOnError?: boolean } = {}): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const body = typeof init?.body === 'string' ? init.body : init?.body == null ? undefined : String(init.body);
    const a = await pinnedRequest(url, { method: init?.method ?? 'GET', headers, body }, requestOptions(l));
    // tsdav reads an error answer as an empty collection: a feed must fail instead, keeping its busy times.
    if (o.failOnError && a.status >= 400) throw new FeedRefused(`answered HTTP ${a.status}`);
    const out = new Headers();
    for (const [k, v] of Object.entries(a.headers))
      if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
    const empty = a.status === 204 || a.status === 304 || (a.status >= 100 && a.status < 200);
    return new Response(empty ? null : new Uint8Array(a.body), { status: a.status, headers: out });
  }) as typeof fetch;
}

export type FetchResult =
  | { kind: 'unchanged' }
  | { kind: 'calendar'; texts: string[]; etag: string | null; lastModified: string | null };

/** A feed that answered but not with a calendar (a 404, a 401, an HTML page). */
export class FeedRefused extends Error {}

export async function fetchIcs(
  feed: CalendarFeed,
  validators: { etag: string | null; lastModified: string | null },
  l: FetchLimits,
): Promise<FetchResult> {
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.1' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  const a = await pinnedRequest(feed.url, { method: 'GET', headers }, requestOptions(l));
  if (a.status === 304) return { kind: 'unchanged' };
  if (a.status < 200 || a.status > 299) throw new FeedRefused(`answered HTTP ${a.status}`);
  const one = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h) ?? null;
  return {
    kind: 'calendar',
    texts: [a.body.toString('utf8')],
    etag: one(a.headers.etag),
    lastModified: one(a.headers['last-modified']),
  };
}

/** The calendar objects of a CalDAV collection that overlap [fromMs, toMs). */
export async function fetchCaldav(
  feed: CalendarFeed,
  auth: string | null,
  fromMs: number,
  toMs: number,
  l: FetchLimits,
): Promise<FetchResult> {
  const { fetchCalendarObjects } = await import('tsdav');
  const objects = await fetchCalendarObjects({
    calendar: { url: feed.url },
    timeRange: { start: new Date(fromMs).toISOString(), end: new Date(toMs).toISOString() },
    headers: auth ? { authorization: auth } : {},
    fetch: pinnedFetch(l, { failOnError: true }),
  });
  return {
    kind: 'calendar',
    texts: objects.map((o) => String(o.data ?? '')).filter((t) => t.trim() !== ''),
    etag: null,
    lastModified: null,
  };
}
