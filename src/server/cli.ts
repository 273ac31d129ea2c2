/**
 * The usp-server command line: the flag table and the dispatch. Each command (its code and its
 * help text) is a file under ./cli/: `serve` runs the business, `mcp` speaks MCP over stdio,
 * `bookings` lets the business act on its own bookings against the same database, `webhooks` and
 * `keys` look after deliveries and signing keys, `validate` checks a business file, `hash-key`
 * prints the digest to put in a business file for an API key.
 */
import { parseArgs } from 'node:util';
import { BusinessFileError } from './business-file.js';
import { CommandError, OPTIONS, UsageError, type Command } from './cli/common.js';
import { serveCommand } from './cli/serve.js';
import { mcpCommand } from './cli/mcp.js';
import { bookingsCommand } from './cli/bookings.js';
import { webhooksCommand } from './cli/webhooks.js';
import { keysCommand } from './cli/keys.js';
import { validateCommand } from './cli/validate.js';
import { hashKeyCommand } from './cli/hash-key.js';
import { registryCommand } from './cli/registry.js';
import { adminUserCommand } from './cli/admin-user.js';

const COMMANDS: readonly Command[] = [serveCommand, mcpCommand, bookingsCommand, webhooksCommand, keysCommand, validateCommand, hashKeyCommand, registryCommand, adminUserCommand];

export const HELP = `usp-server: a Universal Scheduling Protocol business server (REST + MCP)

Usage:
  usp-server COMMAND [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}  ${c.summary}`).join('\n')}

"usp-server COMMAND --help" (or "usp-server help COMMAND") shows a command's usage and options.
`;

/** Every flag of every command, in one table (each command's help says which it reads). */

/**
 * `--trust-proxy` given with no list (the flag's older, boolean form) means a proxy on this host:
 * written out as `--trust-proxy=loopback` so the parser, which wants a value, takes it.
 */
export function bareTrustProxy(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--trust-proxy' && (next === undefined || !/^(loopback|[0-9a-fA-F.:/[\],]+)$/.test(next))) out.push('--trust-proxy=loopback');
    else out.push(argv[i]);
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: bareTrustProxy(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`usp-server: ${(err as Error).message} (see usp-server --help)`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [name, ...rest] = positionals;
  if (!name) {
    if (flags.help) {
      console.log(HELP);
      return 0;
    }
    console.error(HELP);
    return 2;
  }
  if (name === 'help') {
    const target = COMMANDS.find((c) => c.name === rest[0]);
    if (rest[0] && !target) {
      console.error(`usp-server: unknown command ${JSON.stringify(rest[0])} (see usp-server --help)`);
      return 2;
    }
    console.log(target ? target.help : HELP);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`usp-server: unknown command ${JSON.stringify(name)} (see usp-server --help)`);
    return 2;
  }
  if (flags.help) {
    console.log(command.help);
    return 0;
  }
  try {
    return await command.run(flags, rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message.startsWith('Usage: ') ? err.message : `usp-server: ${err.message}`);
      return 2;
    }
    if (err instanceof BusinessFileError || err instanceof CommandError) {
      console.error(`usp-server: ${err.message}`);
      return 1;
    }
    console.error(`usp-server: ${(err as Error)?.message ?? String(err)}`);
    return 1;
  }
}
