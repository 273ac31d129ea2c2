/**
 * Feed subscriptions through the API (spec 3.12.2): a platform subscribes a callback, the business
 * file changes between runs, and the callback receives the signed catalog event with its
 * subscription_id. Plain http callbacks are accepted only to loopback in development.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { demoBusiness, publishedKeys, startWebhookServer, verifyDelivery } from './helpers.js';
import { startTestServer } from '../support/server.js';

describe('catalog events reach feed subscriptions made through the API', () => {
  let rx: WebhookReceiver;
  afterAll(() => rx?.close());

  it('a renamed service produces service.updated at the subscribed callback, signed, with subscription_id', async () => {
    rx = await startWebhookReceiver();
    const db = join(mkdtempSync(join(tmpdir(), 'usp-sub-')), 'biz.db');
    const first = await startWebhookServer({ db });
    const sub = await first.call(
      'POST',
      '/services/feed/subscriptions',
      { callback_url: rx.url('/catalog'), events: ['service.updated'] },
      'https://platform.example/p.json',
    );
    expect(sub.status).toBe(201);
    await first.close();

    const changed = demoBusiness();
    changed.services = changed.services.map((s) => (s.id === 'svc_haircut' ? { ...s, name: 'Haircut & Blow-dry' } : s));
    const second = await startWebhookServer({ db, business: changed });
    try {
      await rx.waitFor((reqs) => reqs.some((r) => r.path === '/catalog'), 5000);
      const req = rx.requests('/catalog')[0];
      const body = JSON.parse(Buffer.from(req.body).toString('utf8'));
      expect(body).toMatchObject({
        event: 'service.updated',
        service_id: 'svc_haircut',
        subscription_id: sub.body.subscription.id,
      });
      expect(body.data.name).toBe('Haircut & Blow-dry');
      const keys = await publishedKeys(second.url);
      expect((await verifyDelivery(req, keys, second.clock.now())).ok).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('without the development switch, an http callback is refused (invalid_request naming callback_url)', async () => {
    const t = await startTestServer();
    try {
      const r = await t.call('POST', '/services/feed/subscriptions', { callback_url: 'http://127.0.0.1:9/hook' });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('callback_url');
    } finally {
      await t.close();
    }
  });
});
