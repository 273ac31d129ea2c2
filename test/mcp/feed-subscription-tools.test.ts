/**
 * The newer text's four feed-subscription MCP methods (read, pause, resume, unsubscribe) as our
 * tools, through the official SDK client in memory: each takes the params the newer OpenRPC names,
 * answers a subscription valid against the official FeedSubscription schema, moves it as the REST
 * routes do, and refuses a subscription another platform made.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OTHER_PLATFORM, PLATFORM } from '../support/server.js';
import { assertValid, validateSchemaDef, specErrors } from '../support/spec.js';
import { describeSpecNext, nextOpenrpcMethod } from '../support/spec-next.js';
import { meta, openEnv, type McpEnv } from './helpers.js';

const TOOLS = [
  'usp_services_feed_subscription_get',
  'usp_services_feed_subscription_pause',
  'usp_services_feed_subscription_resume',
  'usp_services_feed_unsubscribe',
];

let env: McpEnv;
beforeAll(async () => {
  env = await openEnv('v2', 'memory');
});
afterAll(() => env?.close());

/** `_meta` for a call: a write carries an idempotency key, the read may not. */
const metaFor = (tool: string, profile: string) =>
  meta(profile, tool.endsWith('_get') ? {} : { idempotency_key: randomUUID() });
const call = (tool: string, args: Record<string, unknown>, profile = PLATFORM) =>
  env.conn.call(tool, { ...args, ...metaFor(tool, profile) });

async function subscribe(profile = PLATFORM): Promise<string> {
  const r = await call(
    'usp_services_feed_subscribe',
    { callback_url: 'https://platform.example/hooks/catalog' },
    profile,
  );
  return r.structuredContent.subscription.id as string;
}

describeSpecNext('the feed-subscription tools of the newer text, over MCP', () => {
  it('tools/list offers the four with the params and required set of the newer OpenRPC, and hints that tell a read from the moves', async () => {
    const { tools } = await env.conn.client.listTools();
    for (const name of TOOLS) {
      const tool = tools.find((t: any) => t.name === name);
      expect(tool, name).toBeDefined();
      const params = (nextOpenrpcMethod(name).params as any[]).filter((p) => p.name !== '_meta');
      expect(Object.keys(tool.inputSchema.properties).sort(), name).toEqual(
        [...params.map((p) => p.name), '_meta'].sort(),
      );
      expect(tool.inputSchema.required, name).toEqual(params.filter((p) => p.required).map((p) => p.name));
      expect(tool.description.length, name).toBeGreaterThan(30);
      expect(tool.title, name).not.toBe(name);
    }
    const hints = (name: string) => tools.find((t: any) => t.name === name).annotations;
    expect(hints('usp_services_feed_subscription_get').readOnlyHint).toBe(true);
    expect(hints('usp_services_feed_unsubscribe')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(hints('usp_services_feed_subscription_pause')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });

  it('get, pause, resume and unsubscribe answer the subscription in its new status, valid against the official FeedSubscription schema', async () => {
    const id = await subscribe();
    const steps: Array<[string, string]> = [
      ['usp_services_feed_subscription_get', 'active'],
      ['usp_services_feed_subscription_pause', 'paused'],
      ['usp_services_feed_subscription_get', 'paused'],
      ['usp_services_feed_subscription_pause', 'paused'],
      ['usp_services_feed_subscription_resume', 'active'],
      ['usp_services_feed_unsubscribe', 'canceled'],
      ['usp_services_feed_subscription_get', 'canceled'],
    ];
    for (const [tool, status] of steps) {
      const r = await call(tool, { subscription_id: id });
      expect(r.isError, tool).toBeFalsy();
      expect(r.structuredContent.usp.version, tool).toBeDefined();
      expect(r.structuredContent.subscription, tool).toMatchObject({ id, status });
      assertValid(
        specErrors(() => validateSchemaDef('rest_common.json', 'FeedSubscription', r.structuredContent.subscription)),
        `${tool} subscription`,
      );
      expect(r.content.map((c) => c.text).join('\n'), tool).toContain(`Feed subscription ${id} is ${status}`);
    }
  });

  it('a canceled subscription cannot be resumed: a protocol error naming subscription_canceled, and it stays canceled', async () => {
    const id = await subscribe();
    await call('usp_services_feed_unsubscribe', { subscription_id: id });
    const err = await env.conn.callError('usp_services_feed_subscription_resume', {
      subscription_id: id,
      ...metaFor('resume', PLATFORM),
    });
    expect(err.data.code).toBe('subscription_canceled');
    expect(
      (await call('usp_services_feed_subscription_get', { subscription_id: id })).structuredContent.subscription.status,
    ).toBe('canceled');
  });

  it.each(TOOLS)("%s refuses another platform's subscription as not found and leaves it as it was", async (tool) => {
    const id = await subscribe(OTHER_PLATFORM);
    const err = await env.conn.callError(tool, { subscription_id: id, ...metaFor(tool, PLATFORM) });
    expect(err.data.code).toBe('subscription_not_found');
    expect(err.message).not.toContain(OTHER_PLATFORM);
    expect(
      (await call('usp_services_feed_subscription_get', { subscription_id: id }, OTHER_PLATFORM)).structuredContent
        .subscription.status,
    ).toBe('active');
  });
});
