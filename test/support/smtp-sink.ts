/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what it is sent, parsed
 * with `mailparser`, with a switch to refuse the next messages with a given SMTP code and one to
 * keep them without answering.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface SmtpSink {
  url: string;
  received: ParsedMail[];
  /** The raw messages, as received. */
  raw: string[];
  /** Each received message's SMTP envelope (MAIL FROM and RCPT TO), in order. */
  envelopes: Array<{ from: string | null; to: string[] }>;
  /** Refuse the next `count` messages with this code (a 5xx is permanent, a 4xx temporary). */
  refuse(code: number, count?: number): void;
  /**
   * Keep the next messages (they count as received) but withhold the answer to their DATA until
   * `release()`: the sender cannot know they arrived (a crash in that moment leaves it to send again).
   */
  hold(): void;
  release(): void;
  /** Messages to one address. */
  to(address: string): ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtpSink(o: { user?: string; pass?: string } = {}): Promise<SmtpSink> {
  const received: ParsedMail[] = [];
  const raw: string[] = [];
  const envelopes: SmtpSink['envelopes'] = [];
  let refusal: { code: number; left: number } | undefined;
  let holding = false;
  const held: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: !o.user,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === o.user && auth.password === o.pass) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (refusal && refusal.left > 0) {
          refusal.left--;
          const err = new Error(refusal.code >= 500 ? 'mailbox unavailable' : 'try again later') as Error & {
            responseCode: number;
          };
          err.responseCode = refusal.code;
          return cb(err);
        }
        const text = Buffer.concat(chunks).toString('utf8');
        raw.push(text);
        const env = session.envelope;
        envelopes.push({ from: env.mailFrom ? env.mailFrom.address : null, to: env.rcptTo.map((r) => r.address) });
        received.push(await simpleParser(text));
        if (holding) held.push(() => cb());
        else cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const auth = o.user ? `${encodeURIComponent(o.user)}:${encodeURIComponent(o.pass ?? '')}@` : '';
  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    received,
    raw,
    envelopes,
    refuse(code, count = 1) {
      refusal = { code, left: count };
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    to: (address) =>
      received.filter((m) =>
        (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).some((a) => a.value.some((v) => v.address === address)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
