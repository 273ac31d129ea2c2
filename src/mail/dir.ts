/**
 * The folder adapter (`--mail-dir DIR`, and the demo): every message is composed exactly as it would
 * be sent and written as `<when>-<key>.eml`, so a newcomer opens the mails in any mail program.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { toNodemailer } from './smtp.js';
import type { MailTransport } from './port.js';

export function dirTransport(dir: string, now: () => number = Date.now): MailTransport {
  const path = resolve(dir);
  mkdirSync(path, { recursive: true });
  // nodemailer is loaded by the first message (the demo composes none until a booking mails).
  let composer: Promise<Transporter> | undefined;
  const compose = () =>
    (composer ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
    ));
  return {
    description: `dir:${path}`,
    async send(m) {
      const info = (await (await compose()).sendMail(toNodemailer(m))) as { message: Buffer };
      const stamp = new Date(now()).toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
      const key = createHash('sha256').update(m.messageId).digest('hex').slice(0, 12);
      writeFileSync(join(path, `${stamp}-${key}.eml`), info.message);
    },
    async close() {},
  };
}
