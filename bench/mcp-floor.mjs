/**
 * The bare SDK floor for the MCP benchmark: a low-level `Server` from @modelcontextprotocol/server
 * with one trivial `echo` tool (tools/list + tools/call), and nothing else.
 *
 * - `node bench/mcp-floor.mjs stdio`: over stdio (StdioServerTransport).
 * - imported by bench/server-child.mjs (`createFloorMcpApp`): over Streamable HTTP, one
 *   WebStandardStreamableHTTPServerTransport per session on a Hono app served by @hono/node-server
 *   (the same framework usp-server uses).
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes its arguments back.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: true },
};

export function createFloorServer() {
  const server = new Server({ name: 'bench-floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler('tools/call', async (request) => {
    const args = request.params.arguments ?? {};
    return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args };
  });
  return server;
}

/** A Hono app serving `/mcp` with one stateful Streamable HTTP session per initialize. */
export function createFloorMcpApp() {
  const app = new Hono();
  const sessions = new Map();
  app.all('/mcp', async (c) => {
    const req = c.req.raw;
    const sid = req.headers.get('mcp-session-id');
    if (sid) {
      const transport = sessions.get(sid);
      if (!transport) return c.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, 404);
      return transport.handleRequest(req);
    }
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id, onsessionclosed: () => sessions.delete(id) });
    sessions.set(id, transport);
    await createFloorServer().connect(transport);
    return transport.handleRequest(req);
  });
  return app;
}

if (process.argv[2] === 'stdio') {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await createFloorServer().connect(new StdioServerTransport());
}
