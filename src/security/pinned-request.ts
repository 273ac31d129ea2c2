/**
 * One outbound request of any method to a URL somebody else chose (a calendar feed, a CalDAV
 * server): the same rules as the pinned POST (the URL's rule, every resolved address vetted, the
 * connection pinned to the vetted address, no redirects followed), plus a deadline on the whole
 * exchange and a cap on the answer, so that a feed that answers 10 MB or never ends is cut off.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { OutboundRefused, outboundPostProblem, pinnedLookup, vettedAddress } from './pinned-post.js';

export interface PinnedRequestOptions {
  /** Development only: http to loopback names and loopback addresses. */
  allowLoopback: boolean;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  /** A longer answer fails the call with AnswerTooLarge. */
  maxAnswerBytes: number;
  userAgent: string;
  lookup?: (host: string) => Promise<string[]>;
}

export interface PinnedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The answer passed `maxAnswerBytes`: nothing of it is used. */
export class AnswerTooLarge extends Error {}

export async function pinnedRequest(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  opts: PinnedRequestOptions,
): Promise<PinnedAnswer> {
  const problem = outboundPostProblem(url, opts.allowLoopback);
  if (problem) throw new OutboundRefused(`refused: ${problem}`);
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const address = await vettedAddress(host, opts);
  const family = isIP(address) === 6 ? 6 : 4;
  const body = init.body ?? '';
  return new Promise((resolve, reject) => {
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...init.headers, 'user-agent': opts.userAgent };
    if (body !== '' || !['GET', 'HEAD'].includes(init.method))
      headers['content-length'] = String(Buffer.byteLength(body));
    const req = send(
      {
        protocol: u.protocol,
        hostname: host,
        port: u.port === '' ? undefined : Number(u.port),
        path: `${u.pathname}${u.search}`,
        method: init.method,
        headers,
        agent: false,
        lookup: pinnedLookup(address, family),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > opts.maxAnswerBytes)
            req.destroy(new AnswerTooLarge(`answer larger than ${opts.maxAnswerBytes} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new Error(`no complete answer within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    deadline.unref();
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    req.end(body === '' ? undefined : body);
  });
}
