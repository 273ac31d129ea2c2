/**
 * One MCP session on a transport that carries a single client for its whole life (stdio, or an
 * in-memory pair in an embedding program or a test): its own server instance, registered with the
 * hub so that events reach it, unregistered when it closes.
 */
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/server';
import type { NotifiableSession, SessionHub } from './hub.js';
import { createMcpServer, type McpDoorDeps } from './server.js';
import { guardSend } from './wire-fix.js';

export interface McpSessionHandle {
  /** Resolves once the session has closed (the client left or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function connectMcpSession(
  deps: McpDoorDeps,
  hub: SessionHub,
  transport: Transport & { send: Transport['send'] },
  idPrefix = 'session',
): Promise<McpSessionHandle> {
  const session: NotifiableSession = {
    id: `${idPrefix}-${randomUUID()}`,
    catalogSubscriber: false,
    notify: (method, params) => {
      server.notification({ method, params } as never).catch(() => undefined);
    },
  };
  const server = createMcpServer(deps, session, deps.scope);
  const unregister = hub.register(session);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  server.onclose = () => {
    unregister();
    resolveClosed();
  };
  await server.connect(guardSend(transport));
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}
