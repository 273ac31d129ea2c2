/** `usp-server validate`: check a business file and exit. */
import { loadBusinessFile } from '../business-file.js';
import { UsageError, type Command, type Flags } from './common.js';

const HELP = `usp-server validate: check a business file against schemas/business-file.schema.json and the protocol's rules

Usage:
  usp-server validate FILE

Prints "FILE: valid (...)" and exits 0, or one line per problem, naming the field, and exits 1.
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  const file = args[0] ?? flags.config;
  if (!file) throw new UsageError('Usage: usp-server validate FILE   (usp-server validate --help says more)');
  const def = await loadBusinessFile(file);
  console.log(`${file}: valid (${def.services.length} services, ${def.resources.length} resources)`);
  return 0;
}

export const validateCommand: Command = { name: 'validate', help: HELP, run };
