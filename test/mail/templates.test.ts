/** A business replaces a message's text with a template file in the templates folder; a missing file leaves the built-in text (test/mail/template-folder.test.ts). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer } from '../support/server.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-mail-tpl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('templates overridable per business', () => {
  test('the confirmation uses the business template, placeholders filled and escaped in HTML; other kinds keep the built-in text', async () => {
    writeFileSync(
      join(dir, 'confirmed.txt'),
      'See you soon at {{business}} for {{service}} <b>{{when}}</b>.\nDetails: {{link}}',
    );
    const sink = await startSmtpSink();
    const t = await startTestServer({
      business: demoBusiness({ mail_templates: { booking_confirmed: 'confirmed.txt' } }),
      mail: { smtpUrl: sink.url, templateBase: dir, startWorker: false },
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
        buyer: BUYER,
      });
      await t.call('POST', `/bookings/${b.body.booking.id}/cancel`, {});
      await t.server.mailWorker!.tick();
      const [confirmed, canceled] = sink.to(BUYER.email);
      expect(confirmed.text).toContain(`See you soon at ${t.server.biz.def.business.name} for `);
      expect(confirmed.text).toContain(`Details: ${t.url}/booking/${b.body.booking.id}`);
      expect(confirmed.html).toContain('&lt;b&gt;');
      expect(canceled.text).toContain('is canceled');
    } finally {
      await t.close();
      await sink.close();
    }
  });

  test('a template file that cannot be read does not stop the start: that kind keeps its built-in text', async () => {
    const t = await startTestServer({
      business: demoBusiness({ mail_templates: { reminder: 'missing.txt' } }),
      mail: { dir: join(dir, 'out'), templateBase: dir },
    });
    await t.close();
  });
});
