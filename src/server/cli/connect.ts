/** `usp-server connect URL...`: a local stdio MCP server that books at any USP businesses as the person's own platform. */
import { join } from 'node:path';
import { dataDir, intFlag, UsageError, type Command, type Flags } from './common.js';

const HELP = `usp-server connect: book at any USP businesses from a desktop assistant (MCP over stdio)

Usage:
  usp-server connect URL [URL...] [--registry URL] [--identity FILE] [--port N] [--host HOST] [--public-url ORIGIN] [--poll-seconds N]

Speaks MCP on stdin and stdout, as the person's own platform at each business URL given: every
business's tools are offered under its name (maple_pine_salon__usp_bookings_create), each call is
proved with the platform's key and carries an idempotency key, and what the business answers (its
text and structured content) is relayed. The platform's keys are kept in --identity (default
$XDG_DATA_HOME/usp-server/platform-identity.json, else ~/.local/share/usp-server/...; made on first
use, readable by its owner only). Its profile and webhook receiver listen on a local port (--port,
default the one used last time, which the identity file remembers, else any free one; on --host,
default 127.0.0.1): a business binds the platform's key to its profile URL, so the URL must stay
the same from one session to the next. A business on this machine (or one started with
--allow-loopback-profiles) reaches them; a business elsewhere needs --public-url, the origin of a
tunnel or proxy to that port; without one, connect polls such a business instead (every 60 s it
reads again the bookings and waitlist entries made through it, and tells what changed). Verified
webhooks and polled changes (a waitlist offer, a cancellation) become the resource
usp-connect://events and a notification that it changed.

With --registry URL (a USP registry, such as usp-server registry), its searches are tools too
(registry__search_services, registry__search_businesses), and registry__use_business adds a
business a search returned to the session (its tools join, tools/list_changed is sent). Such a
business is reached only over https at a public address (no redirects; every address checked),
unless --allow-loopback-profiles (development) lets in http on loopback.

Options:
  --identity FILE   the platform's keys
  --port N          the local port for the profile and webhooks (default: the last one, else any free port)
  --host HOST       where that port listens (default 127.0.0.1)
  --public-url URL  the public origin that reaches the port
  --registry URL    search businesses at this registry and book at those found
  --allow-loopback-profiles
                    development: a business a registry names may be on loopback over http
  --poll-seconds N  poll every business this often, webhooks or not (default: only those that
                    cannot reach the port, every 60 s)
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  const urls = args.filter((a) => /^https?:\/\//.test(a));
  const other = args.find((a) => !/^https?:\/\//.test(a));
  if (other !== undefined)
    throw new UsageError(`unexpected argument ${JSON.stringify(other)} (business URLs start with http:// or https://)`);
  if (urls.length === 0 && !flags.registry)
    throw new UsageError('Usage: usp-server connect URL [URL...]   (usp-server connect --help says more)');
  if (flags.registry && !/^https?:\/\//.test(flags.registry))
    throw new UsageError(
      `--registry wants a URL starting with http:// or https://, got ${JSON.stringify(flags.registry)}`,
    );
  // Loaded when the command runs: the client and its MCP server cost the other commands nothing at start.
  const { startConnect } = await import('../../client/index.js');
  const running = await startConnect({
    businesses: urls,
    identityFile: flags.identity ?? join(dataDir(), 'platform-identity.json'),
    host: flags.host,
    port: intFlag(flags, 'port', 0),
    publicOrigin: flags['public-url'],
    pollSeconds: intFlag(flags, 'poll-seconds', 1),
    ...(flags.registry ? { registry: flags.registry } : {}),
    allowLoopbackProfiles: flags['allow-loopback-profiles'] === true,
  });
  const stop = () => void running.close().finally(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return -1;
}

export const connectCommand: Command = {
  name: 'connect',
  help: HELP,
  run,
};
