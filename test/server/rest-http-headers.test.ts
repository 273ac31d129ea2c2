/**
 * Issue 40 items 3 and 5: a REST call served over HTTP built `Headers` objects that nobody needed.
 * The Node adapter made a whole `Headers` from the request to copy its fields into the call's evidence,
 * and the host set its own fields (nosniff, the correlation id, HSTS) on the door's Response, which
 * turned the door's plain header record into a `Headers` that the adapter then copied back into a
 * record for Node. Now the evidence is read off the Node request's raw fields, the host's fields go on
 * the Node response before the door runs, and the door answers with one plain record (its RateLimit
 * fields in it): not one `Headers` method is called on the server's side of a call, and the answer
 * carries the same fields as before.
 */
import { createHook } from 'node:async_hooks';
import { request as httpRequest } from 'node:http';
import { afterEach, expect, test, vi } from 'vitest';
import { Pipeline, silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

const PROFILE = 'https://platform.example/profiles/agent.json';

let server: UspServer | undefined;
let restore: (() => void) | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  restore?.();
  restore = undefined;
  await server?.close();
  server = undefined;
});

/** Count every call of a `Headers` method in this process (the client below is node:http, which makes none). */
function countHeadersCalls(): { readonly count: number; readonly names: string[] } {
  const proto = Headers.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names: string[] = [];
  const saved = new Map<string, (...a: unknown[]) => unknown>();
  for (const name of ['append', 'set', 'get', 'has', 'delete', 'forEach', 'entries', 'keys', 'values']) {
    const original = proto[name];
    saved.set(name, original);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      names.push(name);
      return original.apply(this, args);
    };
  }
  restore = () => {
    for (const [name, original] of saved) proto[name] = original;
  };
  return {
    get count() {
      return names.length;
    },
    names,
  };
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function call(url: string, method: string, path: string, headers: Record<string, string | string[]>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function listening(rateLimits: boolean): Promise<string> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    ...(rateLimits ? {} : { security: { rateLimits: false } }),
  });
  return server.listen(0, '127.0.0.1');
}

const agent = { 'usp-agent': `profile="${PROFILE}"` };
/** Promises made per GET /services/{id}, server and client together (50 before this work). */
const PROMISES_PER_GET = 40;

test('a GET and a POST over HTTP call no Headers method on the server, and answer with the host and door fields', async () => {
  const url = await listening(true);
  const warm = await call(url, 'GET', '/services/svc_haircut', agent);
  expect(warm.status).toBe(200);
  const counted = countHeadersCalls();
  const get = await call(url, 'GET', '/services/svc_haircut', { ...agent, 'usp-correlation-id': 'corr-1' });
  const body = JSON.stringify({ service_id: 'svc_haircut', start_date: '2026-12-04', end_date: '2026-12-04' });
  const post = await call(url, 'POST', '/availability/query', { ...agent, 'content-type': 'application/json' }, body);
  expect(counted.names).toEqual([]);

  expect(get.status).toBe(200);
  expect(JSON.parse(get.body).service.id).toBe('svc_haircut');
  expect(get.headers['content-type']).toBe('application/json');
  expect(get.headers['x-content-type-options']).toBe('nosniff');
  expect(get.headers['usp-correlation-id']).toBe('corr-1');
  expect(get.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
  expect(get.headers['ratelimit-policy']).toMatch(/^"[a-z_]+";q=\d+;w=60$/);
  expect(get.headers.ratelimit).toMatch(/^"[a-z_]+";r=\d+;t=\d+$/);
  expect(get.headers['strict-transport-security']).toBeUndefined();

  expect(post.status).toBe(200);
  expect(Array.isArray(JSON.parse(post.body).slots)).toBe(true);
  expect(post.headers['x-content-type-options']).toBe('nosniff');
  expect(post.headers['usp-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
});

test('rate limits off: the answer carries no RateLimit fields, and still no Headers method is called', async () => {
  const url = await listening(false);
  await call(url, 'GET', '/services/svc_haircut', agent);
  const counted = countHeadersCalls();
  const get = await call(url, 'GET', '/services/svc_haircut', agent);
  expect(counted.count).toBe(0);
  expect(get.status).toBe(200);
  expect(get.headers['ratelimit-policy']).toBeUndefined();
  expect(get.headers['x-content-type-options']).toBe('nosniff');
});

test('the evidence holds every field as Headers gave it: names lower-cased, repeats joined, cookies with "; "', async () => {
  const url = await listening(false);
  const execute = vi.spyOn(Pipeline.prototype, 'execute');
  const res = await call(url, 'GET', '/services/svc_haircut', {
    ...agent,
    'Accept-Language': 'de',
    'X-Repeated': ['a', 'b'],
    Cookie: ['x=1', 'y=2'],
  });
  expect(res.status).toBe(200);
  const headers = execute.mock.calls[0][1].presented?.http?.headers ?? {};
  expect(headers['accept-language']).toBe('de');
  expect(headers['x-repeated']).toBe('a, b');
  expect(headers.cookie).toBe('x=1; y=2');
  expect(headers['usp-agent']).toBe(`profile="${PROFILE}"`);
  expect(Object.keys(headers).every((k) => k === k.toLowerCase())).toBe(true);
});

test('405 and 404 answer as before: a GET on a POST-only path, an unknown method, an unknown path', async () => {
  const url = await listening(false);
  // /services/list is POST-only and also matches GET /services/{service_id}: its own 405 comes first.
  const list = await call(url, 'GET', '/services/list', agent);
  expect(list.status).toBe(405);
  expect(list.headers.allow).toBe('POST');
  const odd = await call(url, 'PROPFIND', '/services/list', agent);
  expect(odd.status).toBe(405);
  expect(odd.headers.allow).toBe('POST');
  const templated = await call(url, 'PROPFIND', '/bookings/bkg_123', agent);
  expect(templated.status).toBe(405);
  expect((templated.headers.allow as string).split(/,\s*/).sort()).toEqual(['GET', 'PUT']);
  const nowhere = await call(url, 'PROPFIND', '/nothing/here', agent);
  expect(nowhere.status).toBe(404);
  expect(JSON.parse(nowhere.body).status).toBe(404);
  for (const r of [list, odd, nowhere]) expect(r.headers['x-content-type-options']).toBe('nosniff');
});

test('a call matches one route: Hono calls its handler directly, without composing a chain of two', async () => {
  await listening(false);
  const stacks: string[] = [];
  const execute = Pipeline.prototype.execute;
  vi.spyOn(Pipeline.prototype, 'execute').mockImplementation(function (this: Pipeline, ...args) {
    stacks.push(new Error().stack ?? '');
    return execute.apply(this, args);
  });
  const res = await server!.app.request('/services/svc_haircut', { headers: agent });
  expect(res.status).toBe(200);
  expect(stacks.length).toBe(1);
  expect(stacks[0]).not.toMatch(/hono\/dist\/compose\.js/);
});

test('a GET over HTTP makes no more promises than it did after this work (50 before)', async () => {
  const url = await listening(false);
  for (let i = 0; i < 20; i++) await call(url, 'GET', '/services/svc_haircut', agent);
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++;
    },
  });
  // The fewest of three batches: the server's own timers (a worker's poll, a sweep) make promises too,
  // and on a loaded machine one fires inside a batch now and then (17 more in 20 GETs, seen in CI).
  const batches: number[] = [];
  for (let b = 0; b < 3; b++) {
    promises = 0;
    hook.enable();
    try {
      for (let i = 0; i < 20; i++) await call(url, 'GET', '/services/svc_haircut', agent);
    } finally {
      hook.disable();
    }
    batches.push(promises / 20);
  }
  // The server's and this client's (one each, and its await): listener, host, door, pipeline, store, handler.
  expect(Math.min(...batches)).toBeLessThanOrEqual(PROMISES_PER_GET);
});
