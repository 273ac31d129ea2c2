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
  --mail-templates-dir DIR              the only folder settings.mail_templates may name files in
                                        (default: the business file's folder; none with --demo)
  Without either, messages are queued in the database and sent once a relay or folder is configured.`;

/** The mail options of `serve`; the demo writes to a folder under the data directory by default. */
export function mailOptions(flags: Flags, env: NodeJS.ProcessEnv = process.env): MailOptions | undefined {
  const smtpUrl = flags['smtp-url'] ?? env.SMTP_URL;
  const dir = flags['mail-dir'] ?? (flags.demo && !smtpUrl ? join(dataDir(), 'mail') : undefined);
  const from = flags['mail-from'];
  if (smtpUrl && flags['mail-dir'])
    throw new UsageError(
      '--smtp-url (or SMTP_URL) and --mail-dir are exclusive: mail is either sent or written to a folder',
    );
  // The templates folder is the operator's: a flag, else the folder of the business file they named.
  const templates = flags['mail-templates-dir'] ?? (flags.config ? join(flags.config, '..') : undefined);
  if (!smtpUrl && !dir && from === undefined && templates === undefined) return undefined;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl))
    throw new UsageError('--smtp-url must be smtp://user:pass@host:port or smtps://user:pass@host:port');
  return {
    ...(smtpUrl ? { smtpUrl } : {}),
    ...(dir ? { dir } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(templates !== undefined ? { templateBase: templates } : {}),
  };
}
