/**
 * Special-use address checks for outbound fetches a caller chooses (spec §8.2.3 fetch hardening,
 * RFC 6890 and the IANA special-purpose registries). Pure functions over address strings; anything
 * that is not a valid IP literal counts as special-use, so the check fails closed.
 */
import { isIPv4, isIPv6 } from 'node:net';

type Range4 = readonly [number, number]; // [network as uint32, prefix length]

function v4(a: number, b: number, c: number, d: number, prefix: number): Range4 {
  return [((a << 24) | (b << 16) | (c << 8) | d) >>> 0, prefix];
}

/** IPv4 blocks that are not globally reachable unicast (RFC 6890 and successors). */
const SPECIAL_V4: readonly Range4[] = [
  v4(0, 0, 0, 0, 8), // "this network", incl. the unspecified 0.0.0.0
  v4(10, 0, 0, 0, 8), // private
  v4(100, 64, 0, 0, 10), // shared address space (CGNAT)
  v4(127, 0, 0, 0, 8), // loopback
  v4(169, 254, 0, 0, 16), // link-local, incl. the cloud metadata address 169.254.169.254
  v4(172, 16, 0, 0, 12), // private
  v4(192, 0, 0, 0, 24), // IETF protocol assignments
  v4(192, 0, 2, 0, 24), // documentation TEST-NET-1
  v4(192, 88, 99, 0, 24), // deprecated 6to4 relay anycast
  v4(192, 168, 0, 0, 16), // private
  v4(198, 18, 0, 0, 15), // benchmarking
  v4(198, 51, 100, 0, 24), // documentation TEST-NET-2
  v4(203, 0, 113, 0, 24), // documentation TEST-NET-3
  v4(224, 0, 0, 0, 4), // multicast
  v4(240, 0, 0, 0, 4), // reserved, incl. the limited broadcast 255.255.255.255
];

function parseV4(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inRange4(addr: number, [net, prefix]: Range4): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (addr & mask) >>> 0 === net;
}

function isSpecialV4(addr: number): boolean {
  return SPECIAL_V4.some((r) => inRange4(addr, r));
}

/** Expands a valid IPv6 literal (no zone) into eight 16-bit groups. */
function parseV6(ip: string): number[] {
  let text = ip;
  const groups: number[] = [];
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (dotted) {
    const n = parseV4(dotted[1]);
    tail = [n >>> 16, n & 0xffff];
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const missing = 8 - left.length - right.length - tail.length;
  groups.push(...left, ...new Array<number>(rest === undefined ? 0 : missing).fill(0), ...right, ...tail);
  return groups;
}

function embeddedV4(g: number[]): number {
  return ((g[6] << 16) | g[7]) >>> 0;
}

function isSpecialV6(g: number[]): boolean {
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0);
  // IPv4-mapped ::ffff:0:0/96 is judged by the IPv4 address it carries.
  if (zeroPrefix(5) && g[5] === 0xffff) return isSpecialV4(embeddedV4(g));
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address through a translator.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isSpecialV4(embeddedV4(g));
  // Outside global unicast 2000::/3 everything is special: ::, ::1, IPv4-compatible, 100::/64,
  // 64:ff9b:1::/48, 5f00::/16, fc00::/7 unique-local, fe80::/10 link-local, fec0::/10, ff00::/8 multicast.
  if ((g[0] & 0xe000) !== 0x2000) return true;
  if (g[0] === 0x2001 && g[1] < 0x0200) return true; // 2001::/23 IETF protocol assignments (Teredo, ORCHID, ...)
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // 2001:db8::/32 documentation
  if (g[0] === 0x2002) return true; // 2002::/16 6to4 (deprecated; embeds arbitrary IPv4)
  if ((g[0] & 0xfff0) === 0x3ff0) return true; // 3fff::/20 documentation
  return false;
}

function stripBrackets(ip: string): string {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = bare.indexOf('%');
  return zone === -1 ? bare : bare.slice(0, zone);
}

/**
 * True when `ip` is not a globally reachable unicast address: loopback, private, link-local
 * (169.254.169.254 included), unique-local, CGNAT, "this network", multicast, broadcast,
 * documentation, benchmarking and other reserved ranges of both families. IPv4-mapped and NAT64
 * addresses are judged by the IPv4 address they embed. A string that is not an IP literal is
 * special-use (fail closed). Accepts `[v6]` brackets and `%zone` suffixes.
 */
export function isSpecialUseAddress(ip: string): boolean {
  const bare = stripBrackets(ip.trim());
  if (isIPv4(bare)) return isSpecialV4(parseV4(bare));
  if (isIPv6(bare)) return isSpecialV6(parseV6(bare));
  return true;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.y.z). */
export function isLoopbackAddress(ip: string): boolean {
  const bare = stripBrackets(ip.trim());
  if (isIPv4(bare)) return parseV4(bare) >>> 24 === 127;
  if (!isIPv6(bare)) return false;
  const g = parseV6(bare);
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && embeddedV4(g) >>> 24 === 127;
}

/** Names reserved for documentation, testing and local use (RFC 2606, RFC 6761): never real targets. */
const RESERVED_TLDS = ['example', 'test', 'invalid', 'localhost'];
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];

/**
 * True when `host` is, or is under, a name reserved by RFC 2606 / RFC 6761 (`.example`, `.test`,
 * `.invalid`, `.localhost`, `example.com`, `example.net`, `example.org`). Pure: no DNS. IP
 * literals are never reserved names (their ranges are judged by isSpecialUseAddress).
 */
export function isReservedName(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  if (h === '' || isIPv4(stripBrackets(h)) || isIPv6(stripBrackets(h))) return false;
  const labels = h.split('.');
  if (RESERVED_TLDS.includes(labels[labels.length - 1])) return true;
  return RESERVED_DOMAINS.some((d) => h === d || h.endsWith(`.${d}`));
}
