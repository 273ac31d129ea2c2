/**
 * The usp-server command line: the flag table and the dispatch. Each command (its code and its
 * help text) is a file under ./cli/: `serve` runs the business, `mcp` speaks MCP over stdio,
 * `bookings` lets the business act on its own bookings against the same database, `webhooks` and
 * `keys` look after deliveries and signing keys, `validate` checks a business file, `hash-key`
 * prints the digest to put in a business file for an API key. A command's module is imported only
 * when it is used (./cli/commands.ts), so `usp-server --help` loads none of the server.
 */
import { parseArgs } from 'node:util';
import { COMMANDS, type CommandEntry } from './cli/commands.js';
import { CommandError, OPTIONS, UsageError, optionsWithAdapters, type Command } from './cli/flags.js';

export const HELP = `usp-server: a Universal Scheduling Protocol business server (REST + MCP)

Usage:
  usp-server COMMAND [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}  ${c.summary}`).join('\n')}

"usp-server COMMAND --help" (or "usp-server help COMMAND") shows a command's usage and options.

Exit status: 0 done; 1 the command ran and failed (a business file with problems, a port already
in use, a database it cannot open, an unknown id, a refused change); 2 the command was used
wrongly (an unknown command or option, a missing or bad value).
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
    if (argv[i] === '--trust-proxy' && (next === undefined || !/^(loopback|[0-9a-fA-F.:/[\],]+)$/.test(next)))
      out.push('--trust-proxy=loopback');
    else out.push(argv[i]);
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  // A command's run reads the adapters' flags too; the global help reads the light table alone.
  const options: typeof OPTIONS = commandIn(argv) ? await optionsWithAdapters() : OPTIONS;
  try {
    parsed = parseArgs({ args: bareTrustProxy(argv), options, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(await parseFailure(err as Error & { code?: string }, argv, options));
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
    console.log(target ? (await target.load()).help : HELP);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    console.error(`usp-server: unknown command ${JSON.stringify(name)} (see usp-server --help)`);
    return 2;
  }
  const command = await entry.load();
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
    // business-file.js is loaded by then: every command that reads a business file imports it.
    const { BusinessFileError } = await import('./business-file.js');
    if (err instanceof BusinessFileError || err instanceof CommandError) {
      console.error(`usp-server: ${err.message}`);
      return 1;
    }
    console.error(`usp-server: ${nativeModuleMismatch(err) ?? (err as Error)?.message ?? String(err)}`);
    return 1;
  }
}

/** The command named in argv (the first word that is a command: `host serve` is `host`), for its usage line. */
function commandIn(argv: string[]): CommandEntry | undefined {
  for (const word of argv) {
    const entry = COMMANDS.find((c) => c.name === word);
    if (entry) return entry;
  }
  return undefined;
}

/** A command's usage line(s): what its help says under "Usage:". */
function usageOf(command: Command | undefined): string {
  if (!command) return 'Usage: usp-server COMMAND [options]   (usp-server --help lists the commands)';
  const lines = command.help.split('\n');
  const at = lines.findIndex((l) => l.trim() === 'Usage:');
  const usage =
    at < 0 ? [] : lines.slice(at + 1).filter((_l, i, all) => all.slice(0, i + 1).every((x) => x.trim() !== ''));
  return `Usage:\n${usage.join('\n')}\n(usp-server ${command.name} --help lists its options)`;
}

/** The flag of the table nearest to `name` by edit distance, when it is close enough to be a typo. */
export function nearestFlag(name: string, flags: readonly string[] = Object.keys(OPTIONS)): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const f of flags) {
    const d = editDistance(name, f);
    if (d < bestDistance) [best, bestDistance] = [f, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/** Edit distance with adjacent transpositions counted as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** Node's parse errors in our words: the flag at fault, a near flag that exists, and the usage line. */
async function parseFailure(err: Error & { code?: string }, argv: string[], options: typeof OPTIONS): Promise<string> {
  const usage = usageOf(await commandIn(argv)?.load());
  const flag = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const near = nearestFlag(flag.replace(/^-+/, ''), Object.keys(options));
    return `usp-server: unknown option ${flag}${near ? ` (did you mean --${near}?)` : ''}\n${usage}`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    const takesValue = (options as Record<string, { type: string }>)[flag.replace(/^-+/, '')]?.type === 'string';
    return `usp-server: ${flag} ${takesValue ? 'needs a value' : 'takes no value'}\n${usage}`;
  }
  return `usp-server: ${err.message}\n${usage}`;
}

/**
 * One line for a native module built for another Node.js (better-sqlite3 compiled by one Node, run
 * by another first on PATH), instead of the loader's paragraph; null for any other error.
 */
export function nativeModuleMismatch(err: unknown): string | null {
  const message = (err as Error)?.message ?? '';
  const m = /NODE_MODULE_VERSION (\d+)[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (!m) return null;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(message)?.[1] ?? 'a native module';
  return `${module} was built for another Node.js (module version ${m[1]}; this is Node ${process.version}, which needs ${m[2]}): run \`npm rebuild ${module === 'a native module' ? '' : module}\` with this Node first on PATH (README "Troubleshooting")`;
}
