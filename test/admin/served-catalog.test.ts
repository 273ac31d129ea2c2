/**
 * The stored catalog (the feed platforms sync from, and its events) is the catalog as the business
 * serves it, after an admin edit too: without a payment provider a service paid when booking is
 * served `suspended` with why, and an edit of it keeps it so in the feed rather than publishing it
 * `active` from the bare definition.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const fed = async (id: string) => {
  const feed = await t!.call('GET', '/services/feed', undefined, { profile: null });
  expect(feed.status).toBe(200);
  return feed.body.items.find((i: { data: { id: string } }) => i.data.id === id).data;
};

describe('an admin edit publishes the catalog as served', () => {
  it('PATCH of a service the business cannot take now (no online payment) keeps it suspended, with why, in the feed', async () => {
    t = await startTestServer({ sandbox: false });
    expect((await fed('svc_massage_60')).status).toBe('suspended');
    const edit = await t.call(
      'PATCH',
      '/admin/services/svc_massage_60',
      { name: 'Deep Tissue Massage' },
      { apiKey: ADMIN_KEY, profile: null },
    );
    expect(edit.status).toBe(200);
    const after = await fed('svc_massage_60');
    expect(after.name).toBe('Deep Tissue Massage');
    expect(after.status).toBe('suspended');
    expect(after.description.plain ?? after.description).toMatch(/has not set up online payment yet/);
    // What the feed says is what the service says.
    const served = (await t.call('GET', '/services/svc_massage_60')).body.service;
    expect(after).toEqual(served);
  });
});
