/**
 * A `fetch` for a business somebody else named (a registry's search result): the same outbound
 * rules as every other URL the tree did not choose itself (security's pinned request): https only
 * (http to loopback only in development), no credentials in the URL, every resolved address vetted
 * against special-use ranges and the connection pinned to it, no redirect followed, a deadline on
 * the whole exchange and a cap on the answer. A refusal is a verification error naming its reason,
 * never retried.
 */
import { OutboundRefused, pinnedRequest } from '../security/index.js';
import { verificationError } from './errors.js';

export interface PinnedFetchOptions {
  /** Development only: http to loopback names and addresses. */
  allowLoopback: boolean;
  timeoutMs?: number;
  /** A longer answer fails the request. Default 1 MiB. */
  maxAnswerBytes?: number;
  lookup?: (host: string) => Promise<string[]>;
}

export function pinnedFetch(o: PinnedFetchOptions): typeof globalThis.fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = init?.body;
    if (body != null && typeof body !== 'string') throw new TypeError('pinnedFetch sends string bodies only');
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    let a: Awaited<ReturnType<typeof pinnedRequest>>;
    try {
      a = await pinnedRequest(
        url,
        { method: init?.method ?? 'GET', headers, ...(body ? { body } : {}) },
        {
          allowLoopback: o.allowLoopback,
          timeoutMs: o.timeoutMs ?? 10_000,
          maxAnswerBytes: o.maxAnswerBytes ?? 1 << 20,
          userAgent: 'usp-server-client',
          ...(o.lookup ? { lookup: o.lookup } : {}),
        },
      );
    } catch (err) {
      if (err instanceof OutboundRefused)
        throw verificationError('address_refused', `${new URL(url).origin} is not contacted: ${err.message}`);
      throw err;
    }
    const out = new Headers();
    for (const [k, v] of Object.entries(a.headers)) {
      if (Array.isArray(v)) for (const x of v) out.append(k, x);
      else if (v !== undefined) out.set(k, String(v));
    }
    const empty = a.status === 204 || a.status === 304 || init?.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(a.body), { status: a.status, headers: out });
  };
}
