/** `usp-server keys`: the business's webhook signing keys. */
import { OFFLINE_HELP, UsageError, openOffline, type Command, type Flags } from './common.js';

const HELP = `usp-server keys: the business's webhook signing keys (published in its profile)

Usage:
  usp-server keys list          every key, active or retired (the default)
  usp-server keys rotate        make a new signing key; the old one stays published for 7 days

${OFFLINE_HELP}
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  const sub = args[0] ?? 'list';
  if (sub !== 'list' && sub !== 'rotate') throw new UsageError(`unknown keys command ${JSON.stringify(sub)} (see usp-server keys --help)`);
  const { server } = await openOffline(flags);
  try {
    if (sub === 'rotate') {
      const kid = await server.keyring.rotate(server.clock.now());
      console.log(`new signing key ${kid}; restart the server to sign with it (the old key stays published for 7 days)`);
    } else {
      for (const k of server.keyring.list()) {
        console.log(`${k.kid}  created ${new Date(k.created_ms).toISOString()}${k.retired_ms ? `  retired ${new Date(k.retired_ms).toISOString()}` : '  active'}`);
      }
    }
    return 0;
  } finally {
    await server.close();
  }
}

export const keysCommand: Command = { name: 'keys', summary: 'webhook signing keys (list, rotate)', help: HELP, run };
