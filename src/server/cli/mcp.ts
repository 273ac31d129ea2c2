/** `usp-server mcp`: speak MCP over stdio, for desktop assistants. */
import { createUspServer } from '../compose.js';
import { serveMcpStdio } from '../../bindings/mcp/index.js';
import { GENERIC_PROFILE_PATH } from '../../oauth/index.js';
import { checkProfileUrl } from '../../security/index.js';
import {
  AUTH_HELP,
  ACCESS_HELP,
  BUSINESS_HELP,
  CACHE_HELP,
  DB_HELP,
  LOG_HELP,
  SETTINGS_HELP,
  availabilityCacheBytes,
  clockNotice,
  publicUrlNotice,
  dbPath,
  loadBusinessFileOf,
  settingsFromFlags,
  loggerFrom,
  processClock,
  shownDb,
  securityOptions,
  shutdownTimeoutMs,
  stopOnSignals,
  type Command,
  type Flags,
} from './common.js';

const HELP = `usp-server mcp: speak MCP over stdio (newline-delimited JSON-RPC on stdin/stdout; logs on stderr)

Usage:
  usp-server mcp [--demo | --config FILE] [--db PATH] [options]

${BUSINESS_HELP}

Server:
${DB_HELP}
${ACCESS_HELP}
${CACHE_HELP}

${AUTH_HELP}

Platform:
  --platform-profile URL      the platform profile a tool call acts under when it names none in
                              _meta.usp.profile (the person who launched the process is trusted to
                              choose it); default: the business's profile for assistants without one
                              (<public URL>${GENERIC_PROFILE_PATH})

${LOG_HELP}

${SETTINGS_HELP}
`;

async function run(flags: Flags): Promise<number> {
  const def = await loadBusinessFileOf(flags);
  const sandbox = flags['require-auth'] ? false : Boolean(flags.sandbox || flags.demo);
  // stdout carries the protocol: every log line goes to stderr (the logger always writes there).
  const db = dbPath(flags, def);
  const log = loggerFrom(flags);
  const shutdownMs = shutdownTimeoutMs(flags);
  const server = await createUspServer({
    business: def,
    definition: flags.reimport ? 'import' : 'stored_first',
    settingsOverride: settingsFromFlags(flags),
    db,
    clock: processClock(),
    sandbox,
    adminKeys: flags['admin-key'],
    security: securityOptions(flags),
    log,
    availabilityCacheBytes: availabilityCacheBytes(flags),
  });
  // Over stdio whoever launched the process is trusted to name the platform: a model never has to invent _meta.usp.profile.
  const platformProfile =
    flags['platform-profile'] ?? `${server.biz.publicUrl.replace(/\/$/, '')}${GENERIC_PROFILE_PATH}`;
  const problem = checkProfileUrl(platformProfile, sandbox || Boolean(flags['allow-loopback-profiles']));
  if (flags['platform-profile'] && problem) {
    log.error(`--platform-profile: the URL ${problem}`);
    await server.close();
    return 2;
  }
  const stdio = await serveMcpStdio(
    { pipeline: server.pipeline, scope: server.scope, defaultProfile: platformProfile },
    server.hub,
  );
  log.info(
    `${server.biz.def.business.name}: MCP on stdio${sandbox ? ' (SANDBOX: privileged calls need no platform authentication)' : ''}`,
  );
  log.info(`database: ${shownDb(db)}`);
  if (!server.biz.publicUrlConfigured) log.warn(publicUrlNotice(server.biz.publicUrl));
  const clockLine = clockNotice();
  if (clockLine) log.warn(clockLine);
  // Stop reading requests, let the calls in flight answer, then close the transport and the database.
  const stop = stopOnSignals(
    async () => {
      process.stdin.pause();
      const drained = await server.pipeline.drain(shutdownMs);
      await stdio.close().catch(() => undefined);
      await server.shutdown(0);
      return drained;
    },
    log,
    shutdownMs,
  );
  process.stdin.once('end', () => void stop());
  void stdio.closed.then(() => stop());
  return -1; // keep running
}

export const mcpCommand: Command = { name: 'mcp', help: HELP, run };
