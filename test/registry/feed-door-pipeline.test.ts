/**
 * The registry's feed door is a door like the others: each request is a call of its row through the
 * pipeline, so it is rate-limited, logged with its door and operation, measured, and refused in
 * the REST door's problem shape. A door that answered by itself would show none of these.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/operations/index.js';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';

let server: RegistryServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const capture = () => {
  const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
  const push = (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, fields: fields ?? {} });
  const log: Logger = { info: push, warn: push, error: push };
  return { lines, log };
};

/** As the listener hands a request over: from a peer at this address. */
const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
const post = (s: RegistryServer, id: string, body = '{"event":"service.updated"}') =>
  s.app.fetch(
    new Request(`http://127.0.0.1/registry/feed-events/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
    from('203.0.113.9') as never,
  );

describe('the registry feed door goes through the pipeline', () => {
  it('a callback for no subscribed registration is logged and measured as a call of the feed door, answered as a REST problem', async () => {
    const { lines, log } = capture();
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    const res = await post(server, 'reg_unknown');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, type: expect.stringContaining('usp-protocol.dev/errors/') });
    const calls = lines.filter((l) => l.msg === 'call' && l.fields.door === 'registry-feeds');
    expect(calls).toEqual([
      expect.objectContaining({
        fields: expect.objectContaining({ operation: 'receive_catalog_event', outcome: 'not_found', ok: false }),
      }),
    ]);
    expect(await server.metrics.scrape()).toMatch(/door="registry-feeds"/);
  });

  it('callbacks beyond the public rate limit are refused with 429 and Retry-After before the store is read', async () => {
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log: capture().log,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: { public: 2 } },
    });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await post(server, 'reg_unknown');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 2)).toEqual([404, 404]);
    expect(statuses.at(-1)).toBe(429);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it("the platform profile is the row's answer: the capability and the registry's published keys, as a call of the door", async () => {
    const { lines, log } = capture();
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    const res = await server.app.fetch(new Request('http://127.0.0.1/registry/platform-profile'));
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(Object.keys(doc.usp.capabilities)).toEqual([
      'dev.usp-protocol.services.catalog',
      'dev.usp-protocol.services.catalog.subscriptions',
    ]);
    expect(doc.keys[0]).toMatchObject({ kty: 'EC', kid: expect.any(String) });
    expect(lines.some((l) => l.msg === 'call' && l.fields.door === 'registry-feeds' && l.fields.outcome === 'ok')).toBe(
      true,
    );
  });

  it('a body that is not a JSON object is invalid_request, not a crash', async () => {
    server = await createRegistryServer({
      db: ':memory:',
      sandbox: true,
      log: capture().log,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    const res = await post(server, 'reg_x', '[1,2');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { type: string }).type).toContain('invalid-request');
  });
});
