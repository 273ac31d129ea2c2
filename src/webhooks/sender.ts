/**
 * One signed webhook POST (spec 10.1.1): the exact body bytes, Content-Digest over them, and an
 * RFC 9421 signature covering @method, @authority, @path, content-digest and content-type with
 * `keyid` and `created` as parameters (ES256, raw r||s). The connection goes to an address vetted
 * against special-use ranges, pinned so DNS cannot change it between the check and the connect
 * (security's pinnedPost, which the registry's feed subscriber uses too).
 */
import type { KeyObject } from 'node:crypto';
import { contentDigest, outboundPostProblem, pinnedPost, signRequest } from '../security/index.js';

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
export function signedDelivery(
  url: string,
  body: string,
  key: { kid: string; privateKey: KeyObject },
  nowMs: number,
): Record<string, string> {
  const bytes = new TextEncoder().encode(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigest(bytes),
  };
  const sig = signRequest({ method: 'POST', url, headers, body: bytes }, key, {
    components: WEBHOOK_COMPONENTS,
    created: Math.floor(nowMs / 1000),
  });
  return { ...headers, 'signature-input': sig['Signature-Input'], signature: sig.Signature };
}

/** Where a webhook may go: https anywhere public; http only to loopback when allowed (development). */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): string | null {
  return outboundPostProblem(raw, allowLoopback);
}

export function httpWebhookSender(opts: {
  timeoutMs: number;
  allowLoopback: boolean;
  lookup?: (host: string) => Promise<string[]>;
}): WebhookSender {
  const post = {
    allowLoopback: opts.allowLoopback,
    timeoutMs: opts.timeoutMs,
    lookup: opts.lookup,
    userAgent: 'usp-server webhooks',
  };
  return {
    async send(url, body, key, nowMs) {
      const started = performance.now();
      const done = (status: number | null, error: string | null): SendResult => ({
        status,
        error,
        latencyMs: Math.round(performance.now() - started),
      });
      // Refused URLs are never signed: check before building the headers.
      const problem = checkWebhookUrl(url, opts.allowLoopback);
      if (problem) return done(null, `refused: ${problem}`);
      try {
        const { status } = await pinnedPost(url, signedDelivery(url, body, key, nowMs), body, post);
        return done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`);
      } catch (err) {
        return done(null, (err as Error).message);
      }
    },
  };
}
