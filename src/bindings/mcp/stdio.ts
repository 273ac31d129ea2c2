/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, one session for the life of the
 * process. Logs must go to stderr only: stdout is the protocol.
 */
import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { SessionHub, NotifiableSession } from './hub.js';
import { createMcpServer, type McpDoorDeps } from './server.js';
import { guardSend } from './wire-fix.js';

export async function serveMcpStdio(deps: McpDoorDeps, hub: SessionHub, streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream }): Promise<{ close(): Promise<void>; closed: Promise<void> }> {
  const session: NotifiableSession = {
    id: `stdio-${randomUUID()}`,
    principals: new Set(),
    catalogSubscriber: false,
    notify: (method, params) => {
      server.notification({ method, params } as never).catch(() => undefined);
    },
  };
  const server = createMcpServer(deps, session);
  const transport = guardSend(streams ? new StdioServerTransport(streams.stdin as never, streams.stdout as never) : new StdioServerTransport());
  const unregister = hub.register(session);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  server.onclose = () => {
    unregister();
    resolveClosed();
  };
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}
