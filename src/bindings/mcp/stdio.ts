/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, one session for the life of the
 * process. Logs must go to stderr only: stdout is the protocol.
 */
import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { deserializeMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { SessionHub } from './hub.js';
import type { McpDoorDeps } from './server.js';
import { connectMcpSession, type McpSessionHandle } from './session.js';
import { JSON_RPC } from './errors.js';
import { withDataCode } from './wire-fix.js';

export async function serveMcpStdio(
  deps: McpDoorDeps,
  hub: SessionHub,
  streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<McpSessionHandle> {
  const stdout = streams?.stdout ?? process.stdout;
  const stdin = screenInvalidLines(streams?.stdin ?? process.stdin, stdout);
  return connectMcpSession(deps, hub, new StdioServerTransport(stdin as never, stdout as never), 'stdio');
}

/** Lines longer than this go to the SDK untouched (its own read buffer refuses them). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

/**
 * The SDK's stdio transport silently drops a line that is not JSON, or is JSON but not a valid
 * JSON-RPC message (e.g. `params` that is not an object), so the caller waits forever. JSON-RPC 2.0
 * wants an error reply: screen each line, answer -32700 / -32600 here (with the request id when
 * it can be read), and pass every valid line on unchanged.
 */
function screenInvalidLines(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): NodeJS.ReadableStream {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const reply = (id: unknown, code: number, message: string) => {
    const rid = typeof id === 'string' || typeof id === 'number' ? id : null;
    output.write(JSON.stringify({ jsonrpc: '2.0', id: rid, error: withDataCode({ code, message }) }) + '\n');
  };
  const screen = (line: string): string | null => {
    if (!line.trim()) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      reply(null, JSON_RPC.parse_error, 'Parse error: the line is not JSON.');
      return null;
    }
    try {
      deserializeMessage(line);
      return line;
    } catch {
      const id =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { id?: unknown }).id : null;
      reply(id, JSON_RPC.invalid_request, 'Invalid Request: not a valid JSON-RPC message (params must be an object).');
      return null;
    }
  };
  const screened = new Transform({
    transform(chunk: Buffer | string, _enc, done) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = screen(pending.slice(0, nl).replace(/\r$/, ''));
        pending = pending.slice(nl + 1);
        if (line !== null) this.push(line + '\n');
      }
      if (pending.length > MAX_LINE_CHARS) {
        this.push(pending);
        pending = '';
      }
      done();
    },
    flush(done) {
      pending += decoder.end();
      if (pending) this.push(pending);
      done();
    },
  });
  input.on('error', (err) => screened.destroy(err as Error));
  input.pipe(screened);
  return screened;
}
