/** `usp-server hash-key`: the digest of an admin API key, for a business file. */
import { hashApiKey } from '../../security/index.js';
import { UsageError, type Command, type Flags } from './common.js';

const HELP = `usp-server hash-key: print the sha-256 digest (hex) of an API key

Usage:
  usp-server hash-key KEY

Put the digest in the business file's "admin_api_key_hashes" (a key that acts as the business) or in
"platform_api_keys" (a pre-established platform), so the file never holds the key itself.
`;

async function run(_flags: Flags, args: string[]): Promise<number> {
  if (!args[0]) throw new UsageError('Usage: usp-server hash-key KEY   (usp-server hash-key --help says more)');
  console.log(hashApiKey(args[0]));
  return 0;
}

export const hashKeyCommand: Command = { name: 'hash-key', help: HELP, run };
