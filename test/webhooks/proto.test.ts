import { it, expect } from 'vitest';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startWebhookServer, book, day, publishedKeys, verifyDelivery } from './helpers.js';
it('proto', async () => {
  const rx = await startWebhookReceiver();
  const t = await startWebhookServer();
  const p = t.platform('a', rx.url('/hooks'));
  const b = await book(t, p, 'svc_haircut', day(2));
  expect(await rx.waitFor((r) => r.length >= 1, 3000)).toBe(true);
  const r = rx.requests()[0];
  console.log(r.headers, r.body.toString());
  const keys = await publishedKeys(t.url);
  console.log(keys, await verifyDelivery(r, keys, t.clock.now()));
  await rx.close(); await t.close();
});
