/**
 * The bare SDK floors for the MCP benchmark: a low-level `Server` from @modelcontextprotocol/server
 * with tools/list + tools/call and nothing else. Two floors in one server:
 *
 * - `echo`: returns its arguments (content text + structuredContent): the protocol's own cost.
 * - same payload: a tool named like usp-server's (`usp_availability_query`, ...) that returns the
 *   very result usp-server answered for that call (content text, structuredContent, _meta),
 *   captured once at the start of the run and handed over with `setFloorPayloads`. Its cost over
 *   the echo is what the payload's size costs the SDK (serialization, framing, the client's parse);
 *   usp-server's cost over it is ours.
 *
 * - `node bench/mcp-floor.mjs stdio [payloads.json]`: over stdio (StdioServerTransport).
 * - imported by bench/server-child.mjs (`createFloorMcpApp`): over Streamable HTTP, one
 *   WebStandardStreamableHTTPServerTransport per session on a Hono app served by @hono/node-server
 *   (the same framework usp-server uses); payloads arrive over IPC (`set-payloads`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes its arguments back.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: true },
};

/** Tool name -> the result usp-server answered for the benchmark's call of it. */
let payloads = {};

/** The results the same-payload tools answer (keyed by tool name), as captured from usp-server. */
export function setFloorPayloads(p) {
  payloads = p ?? {};
}

export function createFloorServer() {
  const server = new Server({ name: 'bench-floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      ECHO_TOOL,
      ...Object.keys(payloads).map((name) => ({
        name,
        description: 'Answers a precomputed result.',
        inputSchema: ECHO_TOOL.inputSchema,
      })),
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const same = payloads[request.params.name];
    if (same) return same;
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
      if (!transport)
        return c.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, 404);
      return transport.handleRequest(req);
    }
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => sessions.delete(id),
    });
    sessions.set(id, transport);
    await createFloorServer().connect(transport);
    return transport.handleRequest(req);
  });
  return app;
}

if (process.argv[2] === 'stdio') {
  if (process.argv[3]) setFloorPayloads(JSON.parse(readFileSync(process.argv[3], 'utf8')));
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await createFloorServer().connect(new StdioServerTransport());
}
