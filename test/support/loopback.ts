/**
 * HTTP requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...): on one machine
 * every client is 127.0.0.1 unless it binds another address of 127.0.0.0/8, which Linux accepts
 * without configuration. Lets a test be several clients while its traffic stays on loopback.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface LoopbackAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to `url` sent from `from` (a 127.x.y.z address), with no connection reuse. */
export function requestFrom(
  from: string,
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string; ca?: Buffer } = {},
): Promise<LoopbackAnswer> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(
      url,
      {
        method: o.method ?? 'GET',
        headers: { Connection: 'close', ...(o.headers ?? {}) },
        localAddress: from,
        agent: false,
        ca: o.ca,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end(o.body);
  });
}
