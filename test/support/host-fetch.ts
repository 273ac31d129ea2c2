/**
 * A `fetch` that reaches `*.localhost` names on this machine, as curl and browsers do: Node's own
 * fetch neither resolves them nor lets a caller set `Host`. Requests go out with node:http, the name
 * resolved to 127.0.0.1, so the server sees the name in its Host header. The response body streams
 * (MCP's event streams arrive as they are written), and an aborted signal ends the request.
 */
import { request } from 'node:http';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

const lookup: LookupFunction = (host, options, callback) => {
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '127.0.0.1', family: 4 },
      ]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  (dnsLookup as unknown as LookupFunction)(host, options, callback);
};

export async function hostFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const req = input instanceof Request ? input : new Request(input, init);
  const url = new URL(req.url);
  const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    headers[k] = v;
  });
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const r = request(
      url,
      { method: req.method, headers, lookup, agent: false, signal: init.signal ?? req.signal },
      (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const one of v) out.append(k, one);
          else if (v !== undefined) out.set(k, v);
        }
        const nullBody = req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
        resolve(
          new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream), {
            status: res.statusCode ?? 0,
            headers: out,
          }),
        );
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** GET or send JSON to a URL on a `*.localhost` name; the body parsed when it is JSON. */
export async function hostCall(
  url: string,
  o: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const res = await hostFetch(url, {
    method: o.method ?? 'GET',
    headers: { ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(o.headers ?? {}) },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}
