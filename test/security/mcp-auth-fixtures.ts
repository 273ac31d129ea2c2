/** The MCP connections (stdio and Streamable HTTP) and the proof helpers of the MCP authentication tests. */

import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { withMcpProof, type PopKey, type ProofOptions } from '../../src/client/platform-auth.js';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { SecurityOptions } from '../../src/server/security-wiring.js';
import { BIN, REPO_ROOT } from '../support/build.js';
import { inheritedEnv } from '../support/cli.js';
import { normalizeError } from '../mcp/helpers.js';
import { ADMIN_KEY, demoBusiness } from '../support/server.js';

export interface RpcError {
  code: number;
  message: string;
  data: any;
}

export interface Conn {
  /** The accepted proof audience: the business profile URI as this transport reaches it. */
  aud: string;
  call(tool: string, args: Record<string, unknown>): Promise<any>;
  callError(tool: string, args: Record<string, unknown>): Promise<RpcError>;
  stderr(): string;
  close(): Promise<void>;
}

export function wrap(client: Client, aud: string, stderr: () => string): Conn {
  const call = async (tool: string, args: Record<string, unknown>) => client.callTool({ name: tool, arguments: args });
  return {
    aud,
    call,
    async callError(tool, args) {
      let result: unknown;
      try {
        result = await call(tool, args);
      } catch (err) {
        // Over HTTP a call with no credential at all is an HTTP 401 whose body is the JSON-RPC error.
        return normalizeError(err);
      }
      throw new Error(
        `${tool} was expected to fail with a JSON-RPC error but returned ${JSON.stringify(result).slice(0, 600)}`,
      );
    },
    stderr,
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
}

export async function connectStdio(extraArgs: string[] = []): Promise<Conn> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      BIN,
      'mcp',
      '--demo',
      '--require-auth',
      '--allow-loopback-profiles',
      '--db',
      ':memory:',
      '--admin-key',
      ADMIN_KEY,
      ...extraArgs,
    ],
    cwd: REPO_ROOT,
    // The child on this process's clock (a shifted one too), as the proofs made here use it.
    env: inheritedEnv(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-20_000);
  });
  const client = new Client({ name: 'usp-security-e2e-stdio', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`stdio connect failed: ${(err as Error).message}\n${stderr.slice(-2000)}`);
  }
  // stdio has no listening address: the business is reachable at its public_url only.
  return wrap(client, 'http://localhost:8787/.well-known/usp', () => stderr);
}

export async function startHttp(security: SecurityOptions): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: false,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security,
  });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url };
}

export async function connectHttp(url: string): Promise<Conn> {
  const client = new Client({ name: 'usp-security-e2e-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)));
  return wrap(client, `${url}/.well-known/usp`, () => '');
}

export const usp = (profile: string, extra: Record<string, unknown> = {}) => ({
  _meta: { usp: { profile, ...extra } },
});

/** Arguments signed for `tool` with `key` (platform_key_pop), optionally presenting a credential. */
export function signed(
  conn: Conn,
  key: PopKey,
  tool: string,
  args: Record<string, unknown>,
  o: ProofOptions = {},
): Record<string, unknown> {
  return withMcpProof(key, tool, args, conn.aud, o);
}

/** Arguments carrying a hand-built authorization member. */
export function withAuthorization(
  args: Record<string, unknown>,
  authorization: Record<string, unknown>,
): Record<string, unknown> {
  const meta = args._meta as { usp: Record<string, unknown> };
  return { ...args, _meta: { ...meta, usp: { ...meta.usp, authorization } } };
}

export function errorCodes(r: any): string[] {
  return ((r.structuredContent?.messages ?? []) as any[]).filter((m) => m.type === 'error').map((m) => m.code);
}
