/** `usp-server keys`: the business's webhook signing keys. */
import { OFFLINE_HELP, UsageError, openOffline, type Command, type Flags } from './common.js';

const HELP = `usp-server keys: the business's webhook signing keys (published in its profile)

Usage:
  usp-server keys list          every key, active or retired (the default)
  usp-server keys rotate        publish a next signing key now; it signs after the overlap (--key-overlap SECONDS,
                                default 3600), and the current key stays published for 7 days after that

${OFFLINE_HELP}
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  const sub = args[0] ?? 'list';
  if (sub !== 'list' && sub !== 'rotate')
    throw new UsageError(`unknown keys command ${JSON.stringify(sub)} (see usp-server keys --help)`);
  const { server } = await openOffline(flags);
  try {
    if (sub === 'rotate') {
      const now = server.clock.now();
      const kid = await server.keyring.rotate(now);
      const at = server.keyring.list().find((k) => k.kid === kid)?.activates_ms ?? now;
      console.log(
        `next signing key ${kid}, signing from ${new Date(at).toISOString()}; restart the server now so its profile publishes it before then (the current key stays published for 7 days after)`,
      );
    } else {
      for (const k of server.keyring.list()) {
        const now = server.clock.now();
        const state =
          k.activates_ms && k.activates_ms > now
            ? `  next, signs from ${new Date(k.activates_ms).toISOString()}`
            : k.retired_ms && k.retired_ms <= now
              ? `  retired ${new Date(k.retired_ms).toISOString()}`
              : '  active';
        console.log(`${k.kid}  created ${new Date(k.created_ms).toISOString()}${state}`);
      }
    }
    return 0;
  } finally {
    await server.close();
  }
}

export const keysCommand: Command = { name: 'keys', help: HELP, run };
