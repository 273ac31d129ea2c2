/**
 * One outbound POST to a URL somebody else chose (a webhook endpoint, a business's feed
 * subscription endpoint): the URL's rules checked, every resolved address vetted before any
 * connection, the connection pinned to the vetted address (no second DNS answer, so no
 * rebinding), no redirects, a deadline, and an answer cap. The profile resolver does the same for
 * GETs (platform-profiles.ts).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalhostName, outboundUrlProblem } from './profile-url.js';
import { isLoopbackAddress, isSpecialUseAddress } from './ssrf.js';

export interface PinnedPostOptions {
  /** Development only: http to loopback names and loopback addresses. */
  allowLoopback: boolean;
  timeoutMs: number;
  userAgent: string;
  /** Bytes of the answer kept; a longer answer fails the call. 0 (the default) reads and drops it. */
  maxAnswerBytes?: number;
  /** Host name to addresses; default the system resolver (all addresses). */
  lookup?: (host: string) => Promise<string[]>;
}

export interface PinnedPostAnswer {
  status: number;
  body: Buffer;
}

/** Why nothing was sent: the message starts with `refused:` (a rule said no) or `dns:` (no address). */
export class OutboundRefused extends Error {}

const URL_PROBLEM = {
  not_absolute: 'not an absolute URL',
  credentials: 'carries credentials',
  not_https: 'must use https',
} as const;

/** Why `url` may not be posted to, in words; null when it may (the addresses are vetted at send time). */
export function outboundPostProblem(url: string, allowLoopback: boolean): string | null {
  const p = outboundUrlProblem(url, allowLoopback, { refuseCredentials: true });
  return p === null ? null : URL_PROBLEM[p];
}

// Localhost names are loopback without asking DNS (RFC 6761 6.3); loopback is then refused unless allowed.
const systemLookup = async (host: string) =>
  isLocalhostName(host) ? ['127.0.0.1'] : (await dnsLookup(host, { all: true })).map((a) => a.address);

/** A `lookup` for node's request that answers the vetted address, whatever is asked (no second DNS answer). */
export function pinnedLookup(address: string, family: number): LookupFunction {
  return (_h, o, cb) => {
    if ((o as { all?: boolean }).all)
      (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else (cb as (e: null, a: string, f: number) => void)(null, address, family);
  };
}

/** The vetted address to connect to, or OutboundRefused (the pinned GET of calendar feeds uses it too). */
export async function vettedAddress(
  host: string,
  opts: Pick<PinnedPostOptions, 'allowLoopback' | 'lookup'>,
): Promise<string> {
  let addrs: string[];
  try {
    addrs = isIP(host) ? [host] : await (opts.lookup ?? systemLookup)(host);
  } catch (err) {
    throw new OutboundRefused(`dns: ${(err as Error).message}`);
  }
  const bad = addrs.find((a) => isSpecialUseAddress(a) && !(opts.allowLoopback && isLoopbackAddress(a)));
  if (addrs.length === 0 || bad) throw new OutboundRefused(`refused: ${bad ?? host} is a special-use address`);
  return addrs[0];
}

/**
 * POST `body` to `url`. Answers the status and the kept answer bytes whatever the status; throws
 * OutboundRefused before any connection, or the transport's error (timeout, reset, answer too large).
 */
export async function pinnedPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: PinnedPostOptions,
): Promise<PinnedPostAnswer> {
  const problem = outboundPostProblem(url, opts.allowLoopback);
  if (problem) throw new OutboundRefused(`refused: ${problem}`);
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const address = await vettedAddress(host, opts);
  const family = isIP(address) === 6 ? 6 : 4;
  const cap = opts.maxAnswerBytes ?? 0;
  return new Promise((resolve, reject) => {
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      {
        protocol: u.protocol,
        hostname: host,
        port: u.port === '' ? undefined : Number(u.port),
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': opts.userAgent },
        agent: false,
        timeout: opts.timeoutMs,
        // Pinning: whatever node asks, the answer is the address vetted above.
        lookup: pinnedLookup(address, family),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (cap === 0) return;
          size += c.length;
          if (size > cap) req.destroy(new Error('answer too large'));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
