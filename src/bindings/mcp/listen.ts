/**
 * `subscriptions/listen` on the stateless 2026-07-28 revision. The SDK's listen router sends a
 * resource's updates to every stream that names it, whoever opened it; a platform's webhook
 * resource carries its buyers' data, so before the SDK opens a stream that names one, the door runs
 * the `listen_for_events` row through the pipeline: the listener is authenticated like any
 * privileged call and may name only its own resource. Credentials ride where the revision lets a
 * client put them: the HTTP request (Authorization, an RFC 9421 signature, the profile in USP-Agent),
 * or `_meta.usp` of the listen request's params (profile, authorization; a platform_key_pop proof
 * then covers the method `subscriptions/listen` and the params without `_meta`).
 */
import {
  OPERATIONS,
  ProtocolError,
  WEBHOOK_RESOURCE_PREFIX,
  correlationIdOf,
  listenOperation,
  type CallScope,
  type HttpEvidence,
} from '../../operations/index.js';
import { parseAgent } from '../../web/index.js';
import { errorSentence, toJsonRpcError } from './errors.js';
import { readMeta, sentCorrelationId, type McpDoorDeps } from './server.js';
import { noteRate, type RateNote } from './rate-note.js';

const LISTEN_META = ['profile', 'authorization', 'correlation_id'] as const;

interface ListenRequest {
  id: string | number;
  params: { _meta?: unknown; notifications?: { resourceSubscriptions?: unknown } } & Record<string, unknown>;
}

function asListen(body: unknown): ListenRequest | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const m = body as Record<string, unknown>;
  if (m.method !== 'subscriptions/listen' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return null;
  const params =
    m.params && typeof m.params === 'object' && !Array.isArray(m.params) ? (m.params as ListenRequest['params']) : {};
  return { id: m.id, params };
}

/**
 * The door's answer to a listen request it refuses (a JSON-RPC error for the listen's id, with the
 * HTTP status of a token refusal when it is one); null when the SDK may serve it: not a listen
 * request, one naming no webhook resource, or one whose listener the pipeline let through.
 */
export async function refusedListen(
  deps: McpDoorDeps,
  body: unknown,
  evidence: HttpEvidence | undefined,
  scope: CallScope,
  note?: RateNote,
): Promise<Response | null> {
  const listen = asListen(body);
  if (!listen) return null;
  const subs = listen.params.notifications?.resourceSubscriptions;
  if (!Array.isArray(subs) || !subs.some((u) => typeof u === 'string' && u.startsWith(WEBHOOK_RESOURCE_PREFIX)))
    return null;
  const correlationId = correlationIdOf(sentCorrelationId(listen.params), evidence?.headers['usp-correlation-id']);
  const refuse = async (err: ProtocolError) => {
    const error = toJsonRpcError(err, correlationId);
    // Said as resources/read says it for a resource the caller may not read.
    if (err.detailCode === 'resource_not_found') error.message = errorSentence('resource_not_found', err.message);
    const body = JSON.stringify({ jsonrpc: '2.0', id: listen.id, error });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  const op = listenOperation(deps.operations ?? OPERATIONS);
  if (!op)
    return refuse(
      new ProtocolError('not_found', 'This server raises no booking or waitlist events to listen to.', {
        detailCode: 'resource_not_found',
      }),
    );
  try {
    const meta = readMeta(listen.params._meta, LISTEN_META);
    const { _meta: _ignored, ...signed } = listen.params;
    const res = await deps.pipeline.execute(
      op,
      {
        correlationId,
        input: { resource_subscriptions: subs },
        profile: meta.profile ?? parseAgent(evidence?.headers['usp-agent']) ?? deps.defaultProfile ?? null,
        presented: {
          binding: 'mcp',
          mcp: { tool: 'subscriptions/listen', rawArguments: signed, authorization: meta.authorization },
          http: evidence,
        },
      },
      scope,
    );
    noteRate(note, res);
    return res.ok ? null : refuse(res.error);
  } catch (err) {
    if (err instanceof ProtocolError) return refuse(err);
    throw err;
  }
}
