/**
 * The 401 an MCP client starts authorization from: run by the MCP door before MCP sees a POST /mcp,
 * it challenges a privileged tool call that presents no credential at all (MCP authorization), with
 * a body that is still the USP answer. A presented credential is never checked here: the pipeline
 * checks it once.
 */
import { OPERATIONS, type Logger } from '../operations/index.js';
import { USP_SCOPES } from './provider.js';

export interface McpGateOptions {
  sandbox: boolean;
  log: Logger;
  /** The mechanisms the business accepts (named in the challenge), read when one is sent. */
  accepted: () => readonly string[];
  /** The RFC 9728 metadata URL of the MCP resource, named in the challenge. */
  resourceMetadataUrl: string;
}

/** The tools that need a credential, once per process (the operations table is the process's). */
let privileged: ReadonlySet<string | undefined> | undefined;
const privilegedTools = (): ReadonlySet<string | undefined> =>
  (privileged ??= new Set(
    OPERATIONS.filter((op) => op.access !== 'public').flatMap((op) => [op.tool, op.formerly?.tool]),
  ));

/** The gate: the 401 challenge for a privileged call without a credential, or undefined to let MCP answer. */
export function createMcpGate(
  options: () => McpGateOptions,
): (req: Request, read?: { body: unknown }) => Promise<Response | undefined> {
  /**
   * HTTP 401 (MCP authorization) whose body is still the USP answer: a JSON-RPC error -32006
   * `authentication_required` for the request, with what is accepted and where OAuth starts.
   */
  const challenge = (o: McpGateOptions, msg: { id?: unknown; correlationId?: unknown }) => {
    const data: Record<string, unknown> = {
      code: 'authentication_missing',
      // A sandbox takes what REST takes from USP-Agent: say exactly where it goes on MCP.
      content: o.sandbox
        ? 'This tool needs a credential or, in this sandbox, only your platform profile URL: send it in the tool arguments as ' +
          '_meta.usp.profile, e.g. {"_meta": {"usp": {"profile": "https://platform.example/profile.json"}}}; or sign in through OAuth.'
        : 'This tool needs a credential: sign in through OAuth (or use another accepted mechanism).',
      accepted_mechanisms: o.accepted(),
      resource_metadata: o.resourceMetadataUrl,
    };
    if (typeof msg?.correlationId === 'string') data.correlation_id = msg.correlationId;
    const id = typeof msg?.id === 'string' || typeof msg?.id === 'number' ? msg.id : null;
    return new Response(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32006, message: `authentication_required: ${data.content}`, data },
        id,
      }),
      {
        status: 401,
        headers: {
          'Content-Type': 'application/json',
          'WWW-Authenticate': `Bearer resource_metadata="${o.resourceMetadataUrl}", scope="${USP_SCOPES.join(' ')}"`,
        },
      },
    );
  };
  return async (req, read) => {
    const o = options();
    // RFC 9421 signatures are a credential of their own, checked below the door.
    if (req.headers.has('signature-input') || req.headers.has('signature')) return undefined;
    // A credential on the header (a key, a token, a booking-scoped credential) is checked once, below the door.
    if (req.headers.has('authorization')) return undefined;
    let body: unknown;
    if (read) {
      if (read.body === undefined) return undefined;
      body = read.body;
    } else {
      try {
        body = await req.clone().json();
      } catch {
        return undefined;
      }
    }
    for (const msg of Array.isArray(body) ? body : [body]) {
      const m = msg as {
        id?: unknown;
        method?: unknown;
        params?: {
          name?: unknown;
          arguments?: { _meta?: { usp?: { authorization?: unknown; profile?: unknown; correlation_id?: unknown } } };
        };
      } | null;
      if (!m || typeof m !== 'object' || m.method !== 'tools/call' || !privilegedTools().has(String(m.params?.name)))
        continue;
      const usp = m.params?.arguments?._meta?.usp;
      if (usp?.authorization) continue;
      // A sandbox accepts a named profile in place of a credential; without either, ask for a token.
      if (o.sandbox && typeof usp?.profile === 'string') continue;
      o.log.warn('authentication refused', {
        operation: String(m.params?.name),
        correlation_id: typeof usp?.correlation_id === 'string' ? usp.correlation_id.slice(0, 200) : undefined,
        code: 'authentication_missing',
        detail: 'privileged MCP call over HTTP with no credential: 401 challenge',
      });
      return challenge(o, { id: m.id, correlationId: usp?.correlation_id });
    }
    return undefined;
  };
}
