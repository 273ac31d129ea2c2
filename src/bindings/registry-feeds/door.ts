/**
 * The registry's feed door: the platform profile it subscribes to businesses' catalog feeds under
 * (`GET /registry/platform-profile`) and the callbacks those businesses send catalog events to
 * (`POST /registry/feed-events/{id}`). Each request is one call of its row through the pipeline
 * (authentication and rate limits, the signature check, one log line and metrics record, labelled
 * door `registry-feeds`); refusals are the REST door's problem details. The answer is the row's
 * data as it is (a profile document, `{ received: true }`), without the REST envelope.
 */
import { Hono, type Context } from 'hono';
import {
  FEED_EVENTS_PATH,
  PLATFORM_PROFILE_PATH,
  REGISTRY_FEED_OPERATIONS,
  correlationIdOf,
  ProtocolError,
  type OperationDef,
  type OperationResponse,
  type Pipeline,
  type ScopeResolver,
} from '../../operations/index.js';
import type { HttpEvidence } from '../../security/index.js';
import { problemResponse } from '../../web/index.js';

export interface RegistryFeedDoorOptions {
  pipeline: Pipeline;
  /** The registry a request is for. */
  scopeOf: ScopeResolver;
  /** The client's address as the host sees it (rate limits per address). */
  clientAddress(req: Request, env: unknown): string | undefined;
  /** Told after a catalog event was accepted: the registration is due, re-index now. */
  accepted(): void;
}

/** Whether a path is this door's. */
export const isRegistryFeedPath = (path: string): boolean =>
  path === PLATFORM_PROFILE_PATH || path.startsWith(`${FEED_EVENTS_PATH}/`);

/** A refusal in the REST door's shape, at the path asked for. */
export const registryFeedRefusal = (req: Request, err: ProtocolError): Response =>
  problemResponse(new URL(req.url).pathname, err);

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });

export function createRegistryFeedDoor(o: RegistryFeedDoorOptions): Hono {
  const app = new Hono();
  const call = async (c: Context, op: OperationDef, input: unknown, body: Uint8Array): Promise<OperationResponse> => {
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((v, k) => (headers[k] = v));
    const http: HttpEvidence = {
      method: c.req.method,
      url: c.req.url,
      headers,
      body,
      clientAddress: o.clientAddress(c.req.raw, c.env),
    };
    const correlationId =
      (c.env as { correlationId?: string } | undefined)?.correlationId ??
      correlationIdOf(c.req.header('usp-correlation-id'));
    return o.pipeline.execute(
      op,
      { input, presented: { binding: 'rest', http }, correlationId, door: 'registry-feeds' },
      o.scopeOf(c.req.raw),
    );
  };
  const answer = (c: Context, res: OperationResponse) =>
    res.ok ? json(res.status, res.data) : registryFeedRefusal(c.req.raw, res.error);

  app.on(['GET', 'HEAD'], PLATFORM_PROFILE_PATH, async (c) =>
    answer(c, await call(c, REGISTRY_FEED_OPERATIONS.platformProfile, {}, new Uint8Array())),
  );
  app.post(`${FEED_EVENTS_PATH}/:id`, async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    let event: unknown = {};
    if (body.length > 0) {
      try {
        event = JSON.parse(new TextDecoder().decode(body));
      } catch {
        event = null;
      }
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      return registryFeedRefusal(c.req.raw, new ProtocolError('invalid_request', 'The event is not a JSON object.'));
    }
    const res = await call(c, REGISTRY_FEED_OPERATIONS.catalogEvent, { ...event, id: c.req.param('id') }, body);
    if (res.ok) o.accepted();
    return answer(c, res);
  });
  app.all('*', (c) =>
    registryFeedRefusal(
      c.req.raw,
      new ProtocolError('method_not_allowed', `${c.req.method} is not served at ${c.req.path}.`),
    ),
  );
  return app;
}
