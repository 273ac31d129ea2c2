/**
 * A business's mail templates come only from the templates folder the operator names: a path that
 * leaves it (absolute, `..`, hidden, not a .txt file) is refused at input by the admin API and the
 * business file reader; a template that cannot be used at start (missing, a link out of the folder,
 * a path stored before the rule) is skipped with a warning and the built-in text is sent, and the
 * server starts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ManualClock, importDefinition } from '../../src/operations/index.js';
import { createUspServer } from '../../src/server/compose.js';
import { loadBusinessFile } from '../../src/server/index.js';
import { recorder } from '../support/log-recorder.js';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { TEST_NOW } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-mail-tpl-dir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'HOST-SECRET-4711';

describe('the admin API refuses template paths outside the templates folder', () => {
  test.each([
    '/proc/self/environ',
    '/etc/passwd.txt',
    '../outside.txt',
    'a/../../outside.txt',
    '.env',
    'sub/.hidden.txt',
    'C:\\\\x.txt',
    'business.json',
    'a//b.txt',
  ])('PATCH /admin/settings with %s answers 400 and stores nothing', async (path) => {
    const t = await startTestServer();
    try {
      const r = await t.call(
        'PATCH',
        '/admin/settings',
        { mail_templates: { reminder: path } },
        { apiKey: ADMIN_KEY, profile: null },
      );
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('mail_templates');
      expect(t.server.biz.def.settings.mail_templates).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  test('a relative .txt path inside the folder is accepted', async () => {
    const t = await startTestServer();
    try {
      const r = await t.call(
        'PATCH',
        '/admin/settings',
        { mail_templates: { reminder: 'templates/reminder.txt' } },
        { apiKey: ADMIN_KEY, profile: null },
      );
      expect(r.status).toBe(200);
      expect(r.body.settings.mail_templates).toEqual({ reminder: 'templates/reminder.txt' });
    } finally {
      await t.close();
    }
  });
});

describe('the business file reader refuses them too', () => {
  test('a business file naming /proc/self/environ as a template is refused, naming the setting', async () => {
    const raw = JSON.parse(JSON.stringify(demoBusiness()));
    raw.settings = { mail_templates: { booking_confirmed: '/proc/self/environ' } };
    const file = join(dir, 'business-abs.json');
    writeFileSync(file, JSON.stringify(raw));
    await expect(loadBusinessFile(file)).rejects.toMatchObject({
      issues: [{ path: 'settings.mail_templates.booking_confirmed' }],
    });
  });
});

describe('a template that cannot be used at start falls back to the built-in text, with a warning', () => {
  async function confirmation(mailTemplates: Record<string, string>, templateBase: string) {
    const sink = await startSmtpSink();
    const rec = recorder();
    const t = await startTestServer({
      log: rec.log,
      business: demoBusiness({ mail_templates: mailTemplates }),
      mail: { smtpUrl: sink.url, templateBase, startWorker: false },
    });
    try {
      const q = await t.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      expect(
        (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER }))
          .status,
      ).toBe(201);
      await t.server.mailWorker!.tick();
      return {
        mail: sink.to(BUYER.email)[0],
        warnings: rec.lines.filter((l) => l.level === 'warn' && l.msg.startsWith('mail template not used')),
      };
    } finally {
      await t.close();
      await sink.close();
    }
  }

  test('a missing file: the server starts, the confirmation has the built-in text, and a warning names the setting', async () => {
    const { mail, warnings } = await confirmation({ booking_confirmed: 'missing.txt' }, dir);
    expect(mail.subject).toMatch(/^Confirmed: /);
    expect(warnings.map((w) => w.fields.setting)).toEqual(['settings.mail_templates.booking_confirmed']);
  });

  test('a link inside the folder to a file outside it is not read', async () => {
    const outside = join(dir, 'outside');
    const folder = join(dir, 'templates-with-link');
    mkdirSync(outside, { recursive: true });
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    symlinkSync(join(outside, 'secret.txt'), join(folder, 'confirmed.txt'));
    const { mail, warnings } = await confirmation({ booking_confirmed: 'confirmed.txt' }, folder);
    expect(mail.text).not.toContain(SECRET);
    expect(mail.subject).toMatch(/^Confirmed: /);
    expect(warnings.map((w) => w.fields.reason)).toEqual(['the file is outside the templates folder']);
  });

  test('an absolute path stored before the rule: the server starts on the stored definition, and the mail does not carry the host file', async () => {
    const file = join(dir, 'legacy.db');
    const hostFile = join(dir, 'host-secret.txt');
    writeFileSync(hostFile, SECRET);
    const business = demoBusiness();
    const start = async (log: ReturnType<typeof recorder>['log'], smtpUrl: string) =>
      createUspServer({
        business,
        db: file,
        definition: 'stored_first',
        sandbox: true,
        clock: new ManualClock(TEST_NOW),
        log,
        adminKeys: [ADMIN_KEY],
        sweepIntervalMs: 0,
        webhooks: { enabled: false },
        mail: { smtpUrl, templateBase: join(dir, 'templates-none'), startWorker: false },
      });
    const sink = await startSmtpSink();
    const first = await start(recorder().log, sink.url);
    // What an earlier version let the admin API store.
    await first.store.transaction((tx) =>
      importDefinition(tx, {
        ...business,
        settings: { ...business.settings, mail_templates: { booking_confirmed: hostFile } },
      }),
    );
    await first.close();
    const rec = recorder();
    const second = await start(rec.log, sink.url);
    try {
      const url = await second.listen(0, '127.0.0.1');
      const q = (await (
        await fetch(`${url}/availability/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ service_id: 'svc_haircut', start_date: day(3), end_date: day(3) }),
        })
      ).json()) as { slots: Array<{ id: string }> };
      const booked = await fetch(`${url}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'USP-Agent': 'profile="https://platform.example/profile"' },
        body: JSON.stringify({ service_id: 'svc_haircut', slot_id: q.slots[0].id, buyer: BUYER }),
      });
      expect(booked.status).toBe(201);
      await second.mailWorker!.tick();
      const [mail] = sink.to(BUYER.email);
      expect(mail.subject).toMatch(/^Confirmed: /);
      expect(mail.text).not.toContain(SECRET);
    } finally {
      await second.close();
      await sink.close();
    }
  });
});

describe('the templates folder is the operator’s to name', () => {
  test('--mail-templates-dir names it; else the business file’s folder; the demo has none', async () => {
    const { mailOptions } = await import('../../src/server/cli/mail.js');
    expect(
      mailOptions({ 'mail-templates-dir': '/srv/usp/templates', config: '/srv/usp/business.json' } as never, {})
        ?.templateBase,
    ).toBe('/srv/usp/templates');
    expect(mailOptions({ config: '/srv/usp/business.json' } as never, {})?.templateBase).toBe('/srv/usp');
    expect(mailOptions({ demo: true } as never, {})?.templateBase).toBeUndefined();
  });
});
