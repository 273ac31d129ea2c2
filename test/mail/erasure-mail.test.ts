/**
 * Erasure reaches the mail outbox by booking as well as by address: a booking made for someone
 * else queues messages to both people, each carrying the buyer; after the buyer is erased, no
 * message about them is sent to anyone (the queued ones are canceled) and no row of the outbox
 * holds their name, email, phone or notes. A sign-up code's row keeps no address either.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PG_URL, adminClient, dropSchema, schemaName, urlWithSchema } from '../pg/helpers.js';
import { Browser, actionOf, authorizeUrl, csrfOf, pkce, register, startOAuthServer } from '../oauth/support.js';
import { ADMIN_KEY, day, startTestServer } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-erase-mail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PERSON = {
  first_name: 'Zelda',
  last_name: 'Quinton',
  email: 'zelda.quinton@example.org',
  phone_number: '+1 555 010 7788',
};
const OTHER = { first_name: 'Milo', last_name: 'Brandt', email: 'milo.brandt@example.net' };
const TRACES = ['zelda', 'quinton', '555 010 7788', '5550107788', 'likes it short'];

/** Every row of the mail outbox, as the database holds it (a SQLite file, or a PostgreSQL schema). */
async function mailRows(db: string): Promise<Array<Record<string, unknown>>> {
  if (!db.startsWith('postgres')) {
    const file = new Database(db, { readonly: true });
    try {
      return file.prepare('SELECT * FROM mail_messages').all() as Array<Record<string, unknown>>;
    } finally {
      file.close();
    }
  }
  const client = await adminClient(new URL(db).searchParams.get('schema') ?? undefined);
  try {
    return (await client.query('SELECT * FROM mail_messages')).rows;
  } finally {
    await client.end();
  }
}

/** The engines the booking case runs on: SQLite always, PostgreSQL when one is given. */
const ENGINES: Array<[string, () => { db: string; done: () => Promise<void> }]> = [
  ['SQLite', () => ({ db: join(dir, 'booking.db'), done: async () => undefined })],
  ...(PG_URL
    ? [
        [
          'PostgreSQL',
          () => {
            const schema = schemaName('usp_erase_mail');
            return { db: urlWithSchema(schema), done: () => dropSchema(schema) };
          },
        ] as [string, () => { db: string; done: () => Promise<void> }],
      ]
    : []),
];

const traces = (text: string) => TRACES.filter((s) => text.toLowerCase().includes(s));

describe('erasing a buyer erases the mail about their bookings, whoever it is addressed to', () => {
  test.each(ENGINES)(
    '%s: after the erasure the reminders to the buyer and to the booking’s other person are canceled, none is sent, and no outbox row names the buyer',
    async (_engine, engine) => {
      const { db: file, done } = engine();
      const sink = await startSmtpSink();
      const t = await startTestServer({
        db: file,
        mail: { smtpUrl: sink.url, from: 'Demo Salon <bookings@salon.example>', startWorker: false },
      });
      try {
        const q = await t.call('POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: day(3),
          end_date: day(3),
        });
        const b = await t.call('POST', '/bookings', {
          service_id: 'svc_haircut',
          slot_id: q.body.slots[0].id,
          buyer: PERSON,
          recipient: OTHER,
          notes: 'Zelda likes it short',
        });
        expect(b.status).toBe(201);
        await t.server.mailWorker!.tick();
        // Both people got the confirmation; both have a reminder waiting, each naming the buyer.
        expect(sink.to(PERSON.email)).toHaveLength(1);
        expect(sink.to(OTHER.email)).toHaveLength(1);
        const before = await mailRows(file);
        expect(before.filter((r) => r.kind === 'reminder' && r.status === 'queued')).toHaveLength(2);
        expect(traces(JSON.stringify(before.filter((r) => r.recipient === OTHER.email)))).not.toEqual([]);

        const erased = await t.call(
          'POST',
          '/admin/buyers/erase',
          { email: PERSON.email },
          { apiKey: ADMIN_KEY, profile: null },
        );
        expect(erased.status).toBe(200);

        // The reminder time comes: nothing more is sent to anyone.
        t.clock.set(Date.parse(b.body.booking.slot.start) - 3600_000);
        await t.server.mailWorker!.tick();
        await t.server.mailWorker!.tick();
        expect(sink.received).toHaveLength(2);
        const rows = await t.server.store.read((tx) => tx.mail.forSubject(b.body.booking.id));
        expect(rows.filter((r) => r.kind === 'reminder').map((r) => r.status)).toEqual(['canceled', 'canceled']);
        // The other person's sent confirmation stays sent, without the buyer in it.
        expect(rows.find((r) => r.kind === 'booking_confirmed' && r.recipient === OTHER.email)?.status).toBe('sent');
      } finally {
        await t.close();
        await sink.close();
      }
      try {
        const after = await mailRows(file);
        expect(after.length).toBeGreaterThan(0);
        expect(traces(JSON.stringify(after))).toEqual([]);
        expect(JSON.stringify(after)).not.toContain(PERSON.email);
      } finally {
        await done();
      }
    },
  );

  test('a sign-up code’s row names no address after the erasure (neither its key, nor its recipient, nor its subject)', async () => {
    const sink = await startSmtpSink();
    const file = join(dir, 'signup.db');
    const t = await startOAuthServer({
      db: file,
      mail: { smtpUrl: sink.url, startWorker: false },
      adminKeys: [ADMIN_KEY],
    });
    try {
      const client = await register(t.url);
      const browser = new Browser(t.url);
      const login = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
      const reg = await browser.follow(/href="([^"]+\/register)"/.exec(login.text)![1]);
      const res = await browser.request(actionOf(reg.text), {
        form: { csrf: csrfOf(reg.text), name: 'Zelda', email: PERSON.email, password: 'a long enough password' },
      });
      expect(res.status).toBe(200);
      for (let i = 0; i < 20 && sink.received.length === 0; i++) {
        await t.server.mailWorker!.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(sink.to(PERSON.email)).toHaveLength(1);
      const erased = await fetch(`${t.url}/admin/buyers/erase`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: PERSON.email }),
      });
      expect(erased.status).toBe(200);
    } finally {
      await t.close();
      await sink.close();
    }
    const rows = await mailRows(file);
    expect(rows.map((r) => r.kind)).toEqual(['signup_code']);
    expect(JSON.stringify(rows).toLowerCase()).not.toContain('zelda');
  });
});
