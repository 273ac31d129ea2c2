/**
 * The feed-subscription lifecycle's entry-effect table, move by move over REST: after every legal
 * move the subscription is among those the dispatcher fans catalog events out to exactly when the
 * row of its new status says it delivers; a move to the status it already has answers as it is;
 * every other move is refused (409 subscription_canceled) and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  SUBSCRIPTION_ENTRY_EFFECTS,
  SUBSCRIPTION_TRANSITIONS,
  type SubscriptionMove,
  type SubscriptionStatus,
} from '../../src/domain/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MOVES: SubscriptionMove[] = ['pause', 'resume', 'cancel'];
const TARGET: Record<SubscriptionMove, SubscriptionStatus> = { pause: 'paused', resume: 'active', cancel: 'canceled' };
/** How to bring a new (active) subscription to each status. */
const ROUTE: Record<SubscriptionStatus, SubscriptionMove[]> = { active: [], paused: ['pause'], canceled: ['cancel'] };

describe('a feed subscription entering a status does what its row says', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const path = (id: string, m: SubscriptionMove) =>
    (m === 'cancel'
      ? ['DELETE', `/services/feed/subscriptions/${id}`]
      : ['POST', `/services/feed/subscriptions/${id}/${m}`]) as [string, string];
  const subscriptionIn = async (status: SubscriptionStatus): Promise<string> => {
    const made = await t.call('POST', '/services/feed/subscriptions', {
      callback_url: 'https://platform.example/hooks/catalog',
    });
    expect(made.status).toBe(201);
    const id = made.body.subscription.id as string;
    for (const m of ROUTE[status]) expect((await t.call(...path(id, m))).status).toBe(200);
    return id;
  };
  const delivering = async (id: string) =>
    (await t.server.store.read((tx) => tx.subscriptions.active())).some((s) => s.subscription.id === id);

  for (const from of Object.keys(SUBSCRIPTION_TRANSITIONS) as SubscriptionStatus[]) {
    for (const m of MOVES) {
      const to = SUBSCRIPTION_TRANSITIONS[from][m];
      if (to) {
        test(`${from} --${m}--> ${to}: ${SUBSCRIPTION_ENTRY_EFFECTS[to].delivers ? 'delivers' : 'delivers nothing'}`, async () => {
          const id = await subscriptionIn(from);
          const r = await t.call(...path(id, m));
          expect([r.status, r.body.subscription.status]).toEqual([200, to]);
          expect(await delivering(id)).toBe(SUBSCRIPTION_ENTRY_EFFECTS[to].delivers);
        });
      } else if (TARGET[m] === from) {
        test(`${from} --${m}--> already ${from}: answered as it is`, async () => {
          const id = await subscriptionIn(from);
          const r = await t.call(...path(id, m));
          expect([r.status, r.body.subscription.status]).toEqual([200, from]);
          expect(await delivering(id)).toBe(SUBSCRIPTION_ENTRY_EFFECTS[from].delivers);
        });
      } else {
        test(`${from} --${m}--> refused with subscription_canceled and nothing changed`, async () => {
          const id = await subscriptionIn(from);
          const r = await t.call(...path(id, m));
          expect([r.status, r.body.code]).toEqual([409, 'subscription_canceled']);
          expect((await t.call('GET', `/services/feed/subscriptions/${id}`)).body.subscription.status).toBe(from);
          expect(await delivering(id)).toBe(false);
        });
      }
    }
  }
});
