/**
 * Liveness and readiness for an orchestrator or a load balancer, served by the HTTP host ahead of
 * the doors (no USP headers, no authentication, no proxy rules):
 * - `GET /healthz`: the process is up and its event loop turns (200 always). Restart it only if this fails.
 * - `GET /readyz`: the database answers, takes writes and has this build's migrations, the webhook
 *   dispatcher is running (or turned off on purpose), and the process is not shutting down (200);
 *   otherwise 503 with Retry-After and the reason: take the process out of rotation until it turns
 *   ready again, which it does by itself (except after SIGTERM).
 */
import { StoreUnavailable, type Store } from '../store/index.js';

/** A readiness check never waits longer than this for the database. */
const READY_TIMEOUT_MS = 2000;

/** What the host knows beyond the database: the dispatcher's state and whether a shutdown began. */
export interface ProcessState {
  /** `paused` = waiting for the database (reported, not a failure by itself: the database check decides). */
  dispatcher: () => 'running' | 'paused' | 'disabled' | 'stopped';
  shuttingDown: () => boolean;
}

/** The dispatcher's state as readiness reports it: off on purpose, stopped, paused or running. */
export function dispatcherState(
  dispatcher: { readonly isRunning: boolean; readonly isPaused: boolean },
  enabled: boolean,
): ReturnType<ProcessState['dispatcher']> {
  return !enabled ? 'disabled' : !dispatcher.isRunning ? 'stopped' : dispatcher.isPaused ? 'paused' : 'running';
}

export function probeHandler(
  store: Store,
  state: ProcessState = { dispatcher: () => 'disabled', shuttingDown: () => false },
): (req: Request) => Promise<Response> | undefined {
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    // Most requests name neither probe: no URL parsed for them.
    if (!req.url.includes('/healthz') && !req.url.includes('/readyz')) return undefined;
    const path = new URL(req.url).pathname;
    if (path === '/healthz') return Promise.resolve(reply(200, { status: 'alive' }));
    if (path === '/readyz') return ready(store, state);
    return undefined;
  };
}

async function ready(store: Store, state: ProcessState): Promise<Response> {
  const dispatcher = state.dispatcher();
  if (state.shuttingDown())
    return reply(503, { status: 'shutting_down', database: store.engine, dispatcher }, { 'Retry-After': '2' });
  if (dispatcher === 'stopped')
    return reply(
      503,
      { status: 'unavailable', database: store.engine, dispatcher, reason: 'the webhook dispatcher is not running' },
      { 'Retry-After': '2' },
    );
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StoreUnavailable(`no answer within ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        );
      }),
    ]);
    return reply(200, { status: 'ready', database: store.engine, migrations: 'applied', dispatcher });
  } catch (err) {
    const reason = err instanceof StoreUnavailable ? err.reason : 'the database check failed';
    return reply(503, { status: 'unavailable', database: store.engine, dispatcher, reason }, { 'Retry-After': '2' });
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
