/**
 * Liveness and readiness for an orchestrator or a load balancer, served by the HTTP host ahead of
 * the doors (no USP headers, no authentication, no proxy rules):
 * - `GET /healthz`: the process is up and its event loop turns (200 always). Restart it only if this fails.
 * - `GET /readyz`: the database answers and takes writes (200), or not (503 with Retry-After and the
 *   reason): take the process out of rotation until it turns ready again, which it does by itself.
 */
import { StoreUnavailable, type Store } from '../store/index.js';

/** A readiness check never waits longer than this for the database. */
const READY_TIMEOUT_MS = 2000;

export function probeHandler(store: Store): (req: Request) => Promise<Response> | undefined {
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const path = new URL(req.url).pathname;
    if (path === '/healthz') return Promise.resolve(reply(200, { status: 'alive' }));
    if (path === '/readyz') return ready(store);
    return undefined;
  };
}

async function ready(store: Store): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailable(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      }),
    ]);
    return reply(200, { status: 'ready', database: store.engine });
  } catch (err) {
    const reason = err instanceof StoreUnavailable ? err.reason : 'the database check failed';
    return reply(503, { status: 'unavailable', database: store.engine, reason }, { 'Retry-After': '2' });
  } finally {
    clearTimeout(timer);
  }
}

function reply(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });
}
