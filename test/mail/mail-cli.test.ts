/**
 * `serve` sends buyers' mail through --smtp-url (credentials never printed) or writes it with
 * --mail-dir as .eml files, and says where on its first lines. The child runs on the process
 * clock, so dates are derived from it as other CLI tests do.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { startServeCli } from '../support/cli.js';
import { nyDate } from '../mcp/helpers.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { waitUntil } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-mail-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bookHaircut(url: string, email: string): Promise<string> {
  const date = nyDate(Date.now(), 3);
  const q = await fetch(`${url}/availability/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://platform.example/p.json"' },
    body: JSON.stringify({ service_id: 'svc_haircut', start_date: date, end_date: date }),
  });
  const slot = ((await q.json()) as { slots: Array<{ id: string }> }).slots[0];
  const b = await fetch(`${url}/bookings`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'USP-Agent': 'profile="https://platform.example/p.json"' },
    body: JSON.stringify({
      service_id: 'svc_haircut',
      slot_id: slot.id,
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email },
    }),
  });
  expect(b.status).toBe(201);
  return ((await b.json()) as { booking: { id: string } }).booking.id;
}

/** The shared wait (it throws on timeout), with this file's longer default: children on the real clock take time. */
const until = <T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>) =>
  waitUntil(probe, 10_000);

describe('serve and mail', () => {
  it('--smtp-url: a booking reaches the relay; the start-up line names the relay without its credentials, and no line carries them', async () => {
    const sink = await startSmtpSink({ user: 'mailer', pass: 'pa55-w0rd-smtp' });
    const s = await startServeCli([
      '--demo',
      '--db',
      join(dir, 'smtp.db'),
      '--port',
      '0',
      '--smtp-url',
      sink.url,
      '--mail-from',
      'Salon <hello@salon.example>',
    ]);
    try {
      await bookHaircut(s.url, 'ada@example.com');
      const m = await until(() => sink.to('ada@example.com')[0]);
      expect(m.subject).toMatch(/^Confirmed: /);
      expect(m.from?.value[0].address).toBe('hello@salon.example');
      const port = new URL(sink.url).port;
      expect(s.stderr()).toContain(`mail to buyers: sent through smtp://127.0.0.1:${port}`);
      expect(s.stderr()).not.toContain('pa55-w0rd-smtp');
      expect(s.stderr()).not.toContain('ada@example.com');
    } finally {
      await s.stop();
      await sink.close();
    }
  });

  it('--mail-dir: each message is an .eml file there, parsable, with its invite', async () => {
    const mailDir = join(dir, 'eml');
    const s = await startServeCli(['--demo', '--db', join(dir, 'dir.db'), '--port', '0', '--mail-dir', mailDir]);
    try {
      expect(s.stderr()).toContain(`mail to buyers: written as .eml files to ${mailDir}`);
      await bookHaircut(s.url, 'grace@example.com');
      const file = await until(() => readdirSync(mailDir).find((f) => f.endsWith('.eml')));
      const m = await simpleParser(readFileSync(join(mailDir, file)));
      expect(m.subject).toMatch(/^Confirmed: /);
      expect(m.attachments.some((a) => a.contentType === 'text/calendar')).toBe(true);
    } finally {
      await s.stop();
    }
  });

  it('--smtp-url and --mail-dir together are refused as a usage error', async () => {
    await expect(
      startServeCli([
        '--demo',
        '--db',
        join(dir, 'x.db'),
        '--port',
        '0',
        '--smtp-url',
        'smtp://127.0.0.1:1',
        '--mail-dir',
        join(dir, 'y'),
      ]),
    ).rejects.toThrow(/exclusive/);
  });
});
