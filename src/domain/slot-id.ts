/**
 * Opaque, stable, short slot ids: "slot_" + start + tag, 19 characters for a slot on a whole minute.
 *
 * - start: the slot's start instant. A whole minute (every start a schedule written in minutes
 *   produces) is 6 base64url characters, the minutes since 1970 as 36 bits; any other millisecond
 *   is 8 characters, the milliseconds as 48 bits. startMs must lie in [0, 2^48) (1970 to year 10889).
 * - tag: 8 base64url characters, the first 48 bits of SHA-256 over the UTF-8 JSON
 *   `[serviceId, resourceIds]` (one resource per requirement, in requirement order).
 *
 * The tag names the resource combination by its ids, never by a position in the business file, so
 * reordering services or resources changes no id and never gives an old id another meaning. The
 * engine turns a tag back into resources with the service's tag index (slot-tags.ts), and a
 * business whose combinations would share a tag is refused when it is loaded.
 *
 * Ids of the long form issued before (base64url of the start as 6 bytes followed by that JSON
 * itself) still decode, to the same start and tag, so holds, bookings and waitlist entries stored
 * with them and ids a client cached keep working. The same parts always give the same id, and
 * `decodeSlotId` only accepts ids in canonical form.
 */
import { sha256 } from '@noble/hashes/sha2';

export interface SlotIdParts {
  serviceId: string;
  startMs: number;
  resourceIds: readonly string[];
}

/** What an id carries: the start and the tag of its service and resource combination. */
export interface SlotRef {
  startMs: number;
  tag: string;
}

const PREFIX = 'slot_';
/** Characters of the tag (48 bits). */
const SLOT_TAG_CHARS = 8;
const MINUTE_CHARS = 6;
const MS_CHARS = 8;
const MINUTE_MS = 60_000;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const REVERSE: Int16Array = (() => {
  const r = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) r[ALPHABET.charCodeAt(i)] = i;
  return r;
})();

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** base64url without padding. */
function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63];
  }
  return out;
}

/** UTF-8 bytes of a string, without TextEncoder for the common all-ASCII case (much faster for short strings). */
function utf8(str: string): Uint8Array {
  const n = str.length;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    if (c > 127) return encoder.encode(str);
    out[i] = c;
  }
  return out;
}

/** base64url without padding to bytes; null on any invalid character or impossible length. */
function fromBase64Url(s: string): Uint8Array | null {
  if (s.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? REVERSE[c] : -1;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  return out.subarray(0, o);
}

/** The unsigned integer of `count` base64url characters of `s` from `at` (count <= 8), or -1 on an invalid character. */
function charsToNumber(s: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? REVERSE[c] : -1;
    if (v < 0) return -1;
    n = n * 64 + v;
  }
  return n;
}

/** `count` base64url characters of the unsigned integer n (n < 64^count, count <= 8). */
function numberToChars(n: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const v = n % 64;
    out = ALPHABET[v] + out;
    n = (n - v) / 64;
  }
  return out;
}

function isPlainId(x: unknown): x is string {
  return typeof x === 'string' && x.length > 0;
}

const TWO_24 = 0x1000000;
const MAX_START = 2 ** 48;

function isStart(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < MAX_START;
}

function checkIds(serviceId: unknown, resourceIds: unknown): void {
  if (!isPlainId(serviceId) || !Array.isArray(resourceIds) || !resourceIds.every(isPlainId)) {
    throw new Error('invalid slot id parts: service and resource ids must be non-empty strings');
  }
}

const TWO_18 = 0x40000;

/** The start: 6 characters of minutes on a whole minute, else 8 characters of milliseconds (on the hot path: bit operations on halves). */
function startChars(startMs: number): string {
  if (!isStart(startMs)) throw new Error(`invalid slot id parts: start ${startMs} is not an integer in [0, 2^48)`);
  if (startMs % MINUTE_MS === 0) {
    const m = startMs / MINUTE_MS; // < 2^36
    const hi = Math.floor(m / TWO_18);
    const lo = m - hi * TWO_18;
    return (
      ALPHABET[hi >> 12] +
      ALPHABET[(hi >> 6) & 63] +
      ALPHABET[hi & 63] +
      ALPHABET[lo >> 12] +
      ALPHABET[(lo >> 6) & 63] +
      ALPHABET[lo & 63]
    );
  }
  const hi = Math.floor(startMs / TWO_24);
  const lo = startMs - hi * TWO_24;
  return (
    ALPHABET[(hi >> 18) & 63] +
    ALPHABET[(hi >> 12) & 63] +
    ALPHABET[(hi >> 6) & 63] +
    ALPHABET[hi & 63] +
    ALPHABET[(lo >> 18) & 63] +
    ALPHABET[(lo >> 12) & 63] +
    ALPHABET[(lo >> 6) & 63] +
    ALPHABET[lo & 63]
  );
}

/**
 * The tag of a service and resource combination: base64url of the first 48 bits of SHA-256 over
 * the UTF-8 JSON `[serviceId, resourceIds]`. Independent of any order in the business file.
 */
export function slotTag(serviceId: string, resourceIds: readonly string[]): string {
  checkIds(serviceId, resourceIds);
  const json = JSON.stringify([serviceId, resourceIds]);
  let tag = tagMemo.get(json);
  if (tag === undefined) {
    tag = toBase64Url(sha256(utf8(json)).subarray(0, (SLOT_TAG_CHARS * 3) / 4));
    if (tagMemo.size >= TAG_MEMO_LIMIT) tagMemo.clear();
    tagMemo.set(json, tag);
  }
  return tag;
}

/**
 * Tags by their hashed JSON: a business has a bounded set of combinations, and every hold and
 * booking encodes the id of the slot it re-validates (hashing cost more than the rest of the check).
 */
const tagMemo = new Map<string, string>();
const TAG_MEMO_LIMIT = 10_000;

/** The opaque id of a slot. Throws only on parts that could never be a slot (empty ids, start out of range). */
export function encodeSlotId(parts: SlotIdParts): string {
  const { serviceId, startMs, resourceIds } = parts;
  const tag = slotTag(serviceId, resourceIds);
  return PREFIX + startChars(startMs) + tag;
}

/**
 * A fast encoder for many slots of one service and resource combination (same output as encodeSlotId):
 * the combination's tag is hashed once, each call only encodes the start.
 */
export function slotIdEncoder(serviceId: string, resourceIds: readonly string[]): (startMs: number) => string {
  const tag = slotTag(serviceId, resourceIds);
  return (startMs: number) => PREFIX + startChars(startMs) + tag;
}

/**
 * The head of a slot's id, without its tag: `encodeSlotId(parts)` is `slotIdHead(startMs)` followed by
 * `slotTag(serviceId, resourceIds)` (slot generation writes each start's head once for every combination).
 */
export function slotIdHead(startMs: number): string {
  return PREFIX + startChars(startMs);
}

/** The long form issued before short ids: the 6-byte start followed by the JSON of service and resources. */
function legacyId(parts: SlotIdParts): string {
  const hi = Math.floor(parts.startMs / TWO_24);
  const lo = parts.startMs - hi * TWO_24;
  const head = numberToChars(hi, 4) + numberToChars(lo, 4);
  return PREFIX + head + toBase64Url(utf8(JSON.stringify([parts.serviceId, parts.resourceIds])));
}

function decodeLegacy(id: string): SlotRef | null {
  const bytes = fromBase64Url(id.slice(PREFIX.length));
  if (!bytes || bytes.length < 7) return null;
  const startMs =
    ((bytes[0] << 16) | (bytes[1] << 8) | bytes[2]) * TWO_24 + ((bytes[3] << 16) | (bytes[4] << 8) | bytes[5]);
  const data: unknown = JSON.parse(decoder.decode(bytes.subarray(6)));
  if (!Array.isArray(data) || data.length !== 2) return null;
  const [serviceId, resourceIds] = data as unknown[];
  if (!isPlainId(serviceId) || !Array.isArray(resourceIds) || !resourceIds.every(isPlainId)) return null;
  // Only the canonical spelling is an id (no alternative JSON whitespace or trailing bits).
  if (legacyId({ serviceId, startMs, resourceIds }) !== id) return null;
  return { startMs, tag: slotTag(serviceId, resourceIds) };
}

/**
 * The start and tag an id carries, or null when the id is malformed or not canonical. Never throws.
 * Accepts the short form and the long form issued before it (whose JSON is at least 8 bytes, so it
 * is never 14 or 16 characters long like a short one).
 */
export function decodeSlotId(id: unknown): SlotRef | null {
  try {
    if (typeof id !== 'string' || !id.startsWith(PREFIX) || id.length > 4096) return null;
    const body = id.length - PREFIX.length;
    if (body === MINUTE_CHARS + SLOT_TAG_CHARS || body === MS_CHARS + SLOT_TAG_CHARS) {
      const startLen = body - SLOT_TAG_CHARS;
      const n = charsToNumber(id, PREFIX.length, startLen);
      if (n < 0 || charsToNumber(id, PREFIX.length + startLen, SLOT_TAG_CHARS) < 0) return null;
      const startMs = startLen === MINUTE_CHARS ? n * MINUTE_MS : n;
      // Canonical: in range, and a whole minute is always written in minutes.
      if (!isStart(startMs) || (startLen === MS_CHARS && startMs % MINUTE_MS === 0)) return null;
      return { startMs, tag: id.slice(PREFIX.length + startLen) };
    }
    return decodeLegacy(id);
  } catch {
    return null;
  }
}

/** True when two ids name the same slot (the same id, or a long-form id and the short id of that slot). */
export function sameSlotId(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && a === b) return true;
  const x = decodeSlotId(a);
  const y = decodeSlotId(b);
  return x !== null && y !== null && x.startMs === y.startMs && x.tag === y.tag;
}

/** Canonical grouping key of a slot: `${serviceId}|${startMs}|${resourceIds.join(',')}`. */
export function slotKey(parts: SlotIdParts): string {
  return slotKeyMaker(parts.serviceId, parts.resourceIds)(parts.startMs);
}

/** slotKey() for many starts of one service and resource combination (slot generation's inner loop). */
export function slotKeyMaker(serviceId: string, resourceIds: readonly string[]): (startMs: number) => string {
  const prefix = `${serviceId}|`;
  const suffix = `|${resourceIds.join(',')}`;
  return (startMs) => prefix + startMs + suffix;
}
