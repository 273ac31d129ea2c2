/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, one session for the life of the
 * process. Logs must go to stderr only: stdout is the protocol.
 */
import { type JSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, parseJSONRPCMessage } from '@modelcontextprotocol/server';
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
  const stdin = streams?.stdin ?? process.stdin;
  const stdout = streams?.stdout ?? process.stdout;
  return connectMcpSession(deps, hub, screenedTransport(stdin, stdout), 'stdio');
}

/** What the SDK's stdio transport reads its input with (its `_readBuffer`, an SDK `ReadBuffer`). */
interface LineReader {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/**
 * The SDK's stdio transport, reading through `ScreenedLines` instead of its own `ReadBuffer`: each
 * line is parsed once, here, and the SDK is handed the message (it used to parse every line again,
 * after the screen had parsed it twice). Everything else (start, send, close, the end of stdin) is
 * the SDK's. Its reader is a private member: if a new SDK drops it, this throws at the first start
 * rather than reading each line twice or not at all (test/mcp/stdio-parse-once.test.ts).
 */
function screenedTransport(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): StdioServerTransport {
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  const inner = transport as unknown as { _readBuffer?: LineReader };
  if (typeof inner._readBuffer?.readMessage !== 'function')
    throw new Error('the MCP SDK stdio transport no longer reads through _readBuffer (src/bindings/mcp/stdio.ts)');
  inner._readBuffer = new ScreenedLines(stdout);
  return transport;
}

/**
 * The SDK's stdio transport silently drops a line that is not JSON, or is JSON but not a valid
 * JSON-RPC message (e.g. `params` that is not an object), so the caller waits forever. JSON-RPC 2.0
 * wants an error reply: each line is parsed and checked once, answered -32700 / -32600 here (with
 * the request id when it can be read), and every valid message goes on to the SDK as parsed. Input
 * past the SDK's bound without a line end fails as the SDK's own reader fails (the session closes).
 */
class ScreenedLines implements LineReader {
  private buffer: Buffer | undefined;

  constructor(private readonly output: NodeJS.WritableStream) {}

  append(chunk: Buffer): void {
    if ((this.buffer?.length ?? 0) + chunk.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  readMessage(): JSONRPCMessage | null {
    while (this.buffer) {
      const nl = this.buffer.indexOf(10);
      if (nl === -1) return null;
      const end = nl > 0 && this.buffer[nl - 1] === 13 ? nl - 1 : nl;
      const line = this.buffer.toString('utf8', 0, end);
      this.buffer = nl + 1 < this.buffer.length ? this.buffer.subarray(nl + 1) : undefined;
      const message = this.screen(line);
      if (message) return message;
    }
    return null;
  }

  clear(): void {
    this.buffer = undefined;
  }

  private screen(line: string): JSONRPCMessage | null {
    if (!line.trim()) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.reply(null, JSON_RPC.parse_error, 'Parse error: the line is not JSON.');
      return null;
    }
    try {
      return parseJSONRPCMessage(parsed);
    } catch {
      const id =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { id?: unknown }).id : null;
      this.reply(
        id,
        JSON_RPC.invalid_request,
        'Invalid Request: not a valid JSON-RPC message (params must be an object).',
      );
      return null;
    }
  }

  private reply(id: unknown, code: number, message: string): void {
    const rid = typeof id === 'string' || typeof id === 'number' ? id : null;
    this.output.write(JSON.stringify({ jsonrpc: '2.0', id: rid, error: withDataCode({ code, message }) }) + '\n');
  }
}
