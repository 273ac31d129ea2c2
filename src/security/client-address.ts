/**
 * Who is on the other end of an HTTP request: the one answer that rate limits, lockouts, logs,
 * /metrics access and the dashboard all use. The socket's peer, unless that peer is one of the
 * proxies the operator named (`--trust-proxy 10.0.0.0/8,127.0.0.1`): then X-Forwarded-For is read
 * from the right, skipping the trusted proxies it passed through, and the first hop that is not one
 * is the client (hops further left are that client's own word). X-Forwarded-* from anyone else is
 * ignored, so a client cannot name itself someone else by sending the header.
 */
import { BlockList, isIP } from 'node:net';
import { clientAddressKey } from './rate-limit.js';

/** The proxies whose forwarding headers are believed. */
export interface TrustedProxies {
  /** `address` is one of them (an IPv4-mapped IPv6 address counts as its IPv4). */
  trusts(address: string | undefined): boolean;
  /** Whether any proxy is trusted at all (behind a proxy: plaintext is refused unless it says https). */
  readonly any: boolean;
  /** The list as given, for logs and errors. */
  readonly names: readonly string[];
}

/** What `--trust-proxy` with no list means: a proxy on this host (the loopback interface). */
export const LOOPBACK_PROXIES: readonly string[] = ['127.0.0.0/8', '::1'];

/** An unusable --trust-proxy entry. */
export class ProxyListError extends Error {
  override readonly name = 'ProxyListError';
}

/** Unwrap `::ffff:a.b.c.d` and `[v6]`; other spellings are returned as they are. */
export function plainAddress(address: string): string {
  let a = address.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return mapped ? mapped[1] : a;
}

/**
 * The trusted proxies from a list of addresses and CIDRs (`10.0.0.0/8`, `192.0.2.7`, `::1`,
 * `fd00::/8`, or `loopback`). `true` means loopback only; `false`, undefined or an empty list
 * trusts nobody. Throws ProxyListError naming an entry that is neither.
 */
export function trustedProxies(spec: boolean | string | readonly string[] | undefined): TrustedProxies {
  const entries =
    spec === true
      ? [...LOOPBACK_PROXIES]
      : !spec
        ? []
        : (typeof spec === 'string' ? spec.split(',') : spec).map((s) => s.trim()).filter(Boolean);
  const list = new BlockList();
  const names: string[] = [];
  for (const entry of entries) {
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      names.push(entry);
      continue;
    }
    const [raw, bits, extra] = entry.split('/');
    const addr = plainAddress(raw);
    const family = isIP(addr);
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
      throw new ProxyListError(
        `--trust-proxy takes addresses or CIDRs such as 10.0.0.0/8,127.0.0.1; ${JSON.stringify(entry)} is neither`,
      );
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === max) list.addAddress(addr, type);
    else list.addSubnet(addr, prefix, type);
    names.push(entry);
  }
  return {
    any: names.length > 0,
    names,
    trusts(address) {
      if (!address || names.length === 0) return false;
      const a = plainAddress(address);
      const family = isIP(a);
      return family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** The socket peer of a request as @hono/node-server hands it over (its env's `incoming`). */
export function peerAddress(env: unknown): string | undefined {
  const peer = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
    ?.remoteAddress;
  return peer ? plainAddress(peer) : undefined;
}

/** Whether the request came through a trusted proxy (its X-Forwarded-* headers are believed). */
export function viaTrustedProxy(env: unknown, proxies: TrustedProxies): boolean {
  return proxies.trusts(peerAddress(env));
}

/**
 * The client's address for `req` (the Fetch request) and `env` (the Node request behind it), or
 * undefined when there is no socket (in-process calls).
 */
export function clientAddress(req: Request, env: unknown, proxies: TrustedProxies): string | undefined {
  const peer = peerAddress(env);
  if (!peer || !proxies.trusts(peer)) return peer;
  const hops = (req.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => plainAddress(h))
    .filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    // A hop that is not an address is where the trustworthy part of the chain ends.
    if (isIP(hops[i]) === 0) break;
    client = hops[i];
    if (!proxies.trusts(client)) break;
  }
  return client;
}

/**
 * Who is on the other end as limits, lockouts and logs count them: clientAddress() with an IPv6
 * address counted per /64 (clientAddressKey), or undefined without a socket. The one way a door
 * turns a request into a rate-limit key.
 */
export function clientLimitKey(req: Request, env: unknown, proxies: TrustedProxies): string | undefined {
  const a = clientAddress(req, env, proxies);
  return a ? clientAddressKey(a) : undefined;
}
