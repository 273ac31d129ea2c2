/**
 * MCP authorization over HTTP: a tool call refused for its access token answers with the HTTP
 * status and challenge the MCP authorization specification gives it (RFC 6750 section 3.1), the
 * body staying the JSON-RPC answer: a token that is unknown, expired, revoked or for another
 * resource is 401 `error="invalid_token"`, one without the scope the tool needs 403
 * `error="insufficient_scope"` naming the scope to ask for. The pipeline decides the refusal; the
 * door only reads it back from the answer's `data.code`, in its one rewrite of a POST's answer
 * (`finishPost`, ./wire-fix.ts).
 */

interface RefusedMessage {
  error?: { data?: { code?: unknown; scope?: unknown; resource_metadata?: unknown } };
}

/** The status and challenge of the first token refusal in a JSON-RPC answer (one message or a batch); undefined when there is none. */
export function tokenRefusalOf(body: unknown): { status: 401 | 403; challenge: string } | undefined {
  for (const m of (Array.isArray(body) ? body : [body]) as Array<RefusedMessage | null>) {
    const data = m?.error?.data;
    if (!data) continue;
    const metadata =
      typeof data.resource_metadata === 'string' ? `resource_metadata="${data.resource_metadata}", ` : '';
    if (data.code === 'invalid_token') return { status: 401, challenge: `Bearer ${metadata}error="invalid_token"` };
    if (data.code === 'insufficient_scope')
      return {
        status: 403,
        challenge: `Bearer ${metadata}error="insufficient_scope", scope="${String(data.scope ?? '')}"`,
      };
  }
  return undefined;
}
