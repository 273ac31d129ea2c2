/** `usp-server mcp`: speak MCP over stdio, for desktop assistants. */
import { createUspServer, consoleLogger } from '../compose.js';
import { serveMcpStdio } from '../../bindings/mcp/index.js';
import { AUTH_HELP, ACCESS_HELP, BUSINESS_HELP, DB_HELP, SETTINGS_HELP, dbPath, loadBusiness, shownDb, securityOptions, type Command, type Flags } from './common.js';

const HELP = `usp-server mcp: speak MCP over stdio (newline-delimited JSON-RPC on stdin/stdout; logs on stderr)

Usage:
  usp-server mcp [--demo | --config FILE] [--db PATH] [options]

${BUSINESS_HELP}

Server:
${DB_HELP}
${ACCESS_HELP}

${AUTH_HELP}

${SETTINGS_HELP}
`;

async function run(flags: Flags): Promise<number> {
  const def = await loadBusiness(flags);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  // stdout carries the protocol: every log line goes to stderr (consoleLogger does).
  const db = dbPath(flags, def);
  const server = await createUspServer({ business: def, db, sandbox, adminKeys: flags['admin-key'], security: securityOptions(flags) });
  const stdio = await serveMcpStdio({ pipeline: server.pipeline }, server.hub);
  consoleLogger.info(`${def.business.name}: MCP on stdio${sandbox ? ' (SANDBOX: privileged calls need no platform authentication)' : ''}`);
  consoleLogger.info(`database: ${shownDb(db)}`);
  const stop = async () => {
    await stdio.close().catch(() => undefined);
    await server.close();
    process.exit(0);
  };
  process.stdin.once('end', stop);
  void stdio.closed.then(stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1; // keep running
}

export const mcpCommand: Command = { name: 'mcp', summary: 'speak MCP over stdio, for desktop assistants', help: HELP, run };
