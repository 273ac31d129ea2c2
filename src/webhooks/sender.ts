/**
 * One signed webhook POST (spec 10.1.1): the exact body bytes, Content-Digest over them, and an
 * RFC 9421 signature covering @method, @authority, @path, content-digest and content-type with
 * `keyid` and `created` as parameters (ES256, raw r||s). The connection goes to an address vetted
 * against special-use ranges, pinned so DNS cannot change it between the check and the connect.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { contentDigest, signRequest, isLoopbackAddress, isSpecialUseAddress, outboundUrlProblem } from '../security/index.js';

export interface SendResult {
  status: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookSender {
  send(url: string, body: string, key: { kid: string; privateKey: KeyObject }, nowMs: number): Promise<SendResult>;
}

export const WEBHOOK_COMPONENTS = ['@method', '@authority', '@path', 'content-digest', 'content-type'];

/** Headers for one delivery: the signature covers exactly these bytes. */
export function signedDelivery(url: string, body: string, key: { kid: string; privateKey: KeyObject }, nowMs: number): Record<string, string> {
  const bytes = new TextEncoder().encode(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigest(bytes),
  };
  const sig = signRequest({ method: 'POST', url, headers, body: bytes }, key, { components: WEBHOOK_COMPONENTS, created: Math.floor(nowMs / 1000) });
  return { ...headers, 'signature-input': sig['Signature-Input'], signature: sig.Signature };
}

/** Where a webhook may go: https anywhere public; http only to loopback when allowed (development). */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): string | null {
  const p = outboundUrlProblem(raw, allowLoopback, { refuseCredentials: true });
  return p === null ? null : { not_absolute: 'not an absolute URL', credentials: 'carries credentials', not_https: 'must use https' }[p];
}

export function httpWebhookSender(opts: { timeoutMs: number; allowLoopback: boolean; lookup?: (host: string) => Promise<string[]> }): WebhookSender {
  const lookup = opts.lookup ?? (async (h: string) => (await dnsLookup(h, { all: true })).map((a) => a.address));
  return {
    async send(url, body, key, nowMs) {
      const started = performance.now();
      const done = (status: number | null, error: string | null): SendResult => ({ status, error, latencyMs: Math.round(performance.now() - started) });
      const problem = checkWebhookUrl(url, opts.allowLoopback);
      if (problem) return done(null, `refused: ${problem}`);
      const u = new URL(url);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      let address: string;
      try {
        const addrs = isIP(host) ? [host] : await lookup(host);
        const bad = addrs.find((a) => isSpecialUseAddress(a) && !(opts.allowLoopback && isLoopbackAddress(a)));
        if (addrs.length === 0 || bad) return done(null, `refused: ${bad ?? host} is a special-use address`);
        address = addrs[0];
      } catch (err) {
        return done(null, `dns: ${(err as Error).message}`);
      }
      const headers = signedDelivery(url, body, key, nowMs);
      return new Promise<SendResult>((resolve) => {
        const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
        const req = send(
          {
            protocol: u.protocol,
            hostname: host,
            port: u.port === '' ? undefined : Number(u.port),
            path: `${u.pathname}${u.search}`,
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'usp-server webhooks' },
            agent: false,
            timeout: opts.timeoutMs,
            lookup: (_h, o, cb) => {
              const family = isIP(address) === 6 ? 6 : 4;
              if ((o as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
              else (cb as (e: null, a: string, f: number) => void)(null, address, family);
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(done(res.statusCode ?? null, res.statusCode && res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`)));
            res.on('error', (e) => resolve(done(res.statusCode ?? null, e.message)));
          },
        );
        req.on('timeout', () => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)));
        req.on('error', (e) => resolve(done(null, e.message)));
        req.end(body);
      });
    },
  };
}
