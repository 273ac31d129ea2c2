/** `usp-server admin-user`: the business users who sign in to the dashboard at /admin. */
import { addBusinessUser } from '../../operations/index.js';
import { CommandError, OFFLINE_HELP, UsageError, openOffline, type Command, type Flags } from './common.js';

const HELP = `usp-server admin-user: accounts for the business's dashboard (/admin)

Usage:
  usp-server admin-user add EMAIL   create the account, or set a new password for it

The password (at least 12 characters) is read from $USP_ADMIN_PASSWORD, else from the first line of
standard input; it is stored as a scrypt hash, never in clear. These accounts are the business's own
staff, separate from any buyer account.

${OFFLINE_HELP}
`;

async function readPassword(): Promise<string> {
  if (process.env.USP_ADMIN_PASSWORD) return process.env.USP_ADMIN_PASSWORD;
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

async function run(flags: Flags, args: string[]): Promise<number> {
  const [sub, email] = args;
  if (sub !== 'add' || !email)
    throw new UsageError('Usage: usp-server admin-user add EMAIL   (usp-server admin-user --help says more)');
  const password = await readPassword();
  const { server } = await openOffline(flags);
  try {
    await addBusinessUser(server.store, email, password, server.clock.now());
    console.log(`business user ${email.trim().toLowerCase()} can now sign in at /admin`);
    return 0;
  } catch (err) {
    throw new CommandError((err as Error).message);
  } finally {
    await server.close();
  }
}

export const adminUserCommand: Command = { name: 'admin-user', help: HELP, run };
