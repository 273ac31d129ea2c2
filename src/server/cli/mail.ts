/** `serve`'s mail flags: where buyers' messages go (an SMTP relay, or a folder of .eml files), and from whom. */
import { join } from 'node:path';
import type { MailOptions } from '../mail-wiring.js';
import { dataDir, UsageError, type Flags } from './common.js';

export const MAIL_HELP = `Mail to buyers (confirmations, changes, reminders, payment requests, waitlist offers, sign-up codes):
  --smtp-url URL                        smtp://user:pass@host:port (STARTTLS when offered) or smtps://... (or SMTP_URL);
                                        the credentials are never logged
  --mail-from "Name <address>"          the From header (default: the business's name at no-reply@<public host>)
  --mail-dir DIR                        write each message as an .eml file in DIR instead of sending it
                                        (--demo without --smtp-url: <data directory>/mail)
  Without either, messages are queued in the database and sent once a relay or folder is configured.`;

/** The mail options of `serve`; the demo writes to a folder under the data directory by default. */
export function mailOptions(flags: Flags, env: NodeJS.ProcessEnv = process.env): MailOptions | undefined {
  const smtpUrl = flags['smtp-url'] ?? env.SMTP_URL;
  const dir = flags['mail-dir'] ?? (flags.demo && !smtpUrl ? join(dataDir(), 'mail') : undefined);
  const from = flags['mail-from'];
  if (smtpUrl && flags['mail-dir']) throw new UsageError('--smtp-url (or SMTP_URL) and --mail-dir are exclusive: mail is either sent or written to a folder');
  if (!smtpUrl && !dir && from === undefined) return undefined;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl)) throw new UsageError('--smtp-url must be smtp://user:pass@host:port or smtps://user:pass@host:port');
  return { ...(smtpUrl ? { smtpUrl } : {}), ...(dir ? { dir } : {}), ...(from !== undefined ? { from } : {}), ...(flags.config ? { templateBase: join(flags.config, '..') } : {}) };
}
