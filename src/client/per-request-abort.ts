/**
 * A `fetch` for the official MCP SDK's `StreamableHTTPClientTransport` (its `fetch` option) that
 * gives every request an abort signal of its own.
 *
 * The transport hands the same signal (its own `AbortController`'s, alive as long as the
 * connection) to every `fetch`. On Node 20, undici's `Request` adds an abort listener to that
 * signal per call and removes it only when the request object is garbage collected, so a busy
 * session piles up one listener (and the request it keeps reachable) per call until a full
 * collection runs: `MaxListenersExceededWarning` after 1,500 calls, memory that grows with the call
 * rate. Here the caller's signal gets one bridge per request, removed as soon as the response body
 * ends, fails or is cancelled (or the request fails); aborting the caller's signal still aborts the
 * request and its body, SSE streams included.
 */
export function perRequestAbortFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const parent = init?.signal;
    if (!parent || parent.aborted) return base(input, init);
    const own = new AbortController();
    const onAbort = () => own.abort(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    const release = () => parent.removeEventListener('abort', onAbort);
    let res: Response;
    try {
      res = await base(input, { ...init, signal: own.signal });
    } catch (e) {
      release();
      throw e;
    }
    if (!res.body) {
      release();
      return res;
    }
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          release();
          controller.error(e);
        }
      },
      cancel(reason) {
        release();
        return reader.cancel(reason);
      },
    });
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    // A constructed response has no URL of its own; redirect handling reads the one fetched.
    Object.defineProperties(out, { url: { value: res.url }, redirected: { value: res.redirected } });
    return out;
  };
}
