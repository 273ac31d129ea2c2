/**
 * A business that challenges every proof for a nonce (`serve --require-auth --require-pop-nonce`):
 * the client answers the challenge once with the nonce it carried (the DPoP-Nonce header on REST,
 * the error's data on MCP), on each binding, and the write goes through with its one idempotency key.
 * A credential issued before the platform rotates its proof key keeps working (proved by the key it
 * is bound to).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BusinessClient,
  PlatformIdentity,
  ProfileCache,
  servePlatform,
  type PlatformServer,
} from '../../src/client/index.js';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';

const dayAhead = (n: number) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + n * 86_400_000));

let cli: RunningCli;
let platform: PlatformServer;
const identity = new PlatformIdentity();

beforeAll(async () => {
  ensureBuilt();
  cli = await startServeCli([
    '--demo',
    '--require-auth',
    '--require-pop-nonce',
    '--allow-loopback-profiles',
    '--db',
    ':memory:',
    '--port',
    '0',
  ]);
  platform = await servePlatform(identity);
}, 120_000);
afterAll(async () => {
  await cli?.stop();
  await platform?.close();
});

describe.each(['rest', 'mcp'] as const)('a nonce challenge on %s is answered once', (binding) => {
  it('a hold is taken after the challenge, counted as one attempt', async () => {
    const biz = await BusinessClient.connect(cli.url, { identity, profiles: new ProfileCache(), prefer: binding });
    try {
      let slot: any;
      for (let d = 2; !slot && d < 16; d++)
        slot = (
          await biz.call('query_availability', {
            service_id: 'svc_haircut',
            start_date: dayAhead(d),
            end_date: dayAhead(d),
          })
        ).data.slots?.[0];
      const hold = await biz.call('hold_slot', { service_id: 'svc_haircut', slot_id: slot.id });
      expect(hold.error).toBeNull();
      expect(hold.data.hold.status).toBe('active');
      expect(hold.attempts).toBe(1);
      // The credential the hold came with is presented, with a proof, on the release.
      const released = await biz.call('release_hold', { hold_id: hold.data.hold.id });
      expect(released.error).toBeNull();
    } finally {
      await biz.close();
    }
  }, 60_000);
});

describe('the platform rotates its proof key', () => {
  it('a credential issued before the rotation is presented with the key it is bound to; new proofs use the new key', async () => {
    const own = new PlatformIdentity({ profileUrl: identity.profileUrl });
    const biz = await BusinessClient.connect(cli.url, { identity: own, profiles: new ProfileCache() });
    try {
      let slot: any;
      for (let d = 3; !slot && d < 16; d++)
        slot = (
          await biz.call('query_availability', {
            service_id: 'svc_haircut',
            start_date: dayAhead(d),
            end_date: dayAhead(d),
          })
        ).data.slots?.[0];
      const hold = await biz.call('hold_slot', { service_id: 'svc_haircut', slot_id: slot.id });
      expect(hold.error).toBeNull();
      const before = own.popKey.jkt;
      expect(own.rotate().jkt).not.toBe(before);
      const released = await biz.call('release_hold', { hold_id: hold.data.hold.id });
      expect(released.error).toBeNull();
    } finally {
      await biz.close();
    }
  }, 60_000);
});
