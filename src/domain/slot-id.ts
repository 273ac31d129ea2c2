/**
 * Opaque, stable slot ids. A slot is fully identified by its service, its start instant and the
 * resource combination (one resource per requirement, in requirement order), so the id simply
 * carries those parts: "slot_" + base64url(payload), payload = startMs as 6 bytes big-endian
 * followed by the UTF-8 JSON `[serviceId, resourceIds]`. The 6-byte head keeps the JSON aligned
 * on a base64 boundary, so a generator encodes the JSON once per combination and only the
 * 8 characters of the start per slot. startMs must lie in [0, 2^48) (1970 to year 10889).
 * The same parts always give the same id, and `decodeSlotId` only accepts ids in that canonical form.
 */

export interface SlotIdParts {
  serviceId: string;
  startMs: number;
  resourceIds: string[];
}

const PREFIX = 'slot_';
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

/** The 8 base64url characters of startMs as 6 big-endian bytes. */
function startChars(startMs: number): string {
  if (!isStart(startMs)) throw new Error(`invalid slot id parts: start ${startMs} is not an integer in [0, 2^48)`);
  const hi = Math.floor(startMs / TWO_24);
  const lo = startMs - hi * TWO_24;
  return (
    ALPHABET[(hi >> 18) & 63] + ALPHABET[(hi >> 12) & 63] + ALPHABET[(hi >> 6) & 63] + ALPHABET[hi & 63] +
    ALPHABET[(lo >> 18) & 63] + ALPHABET[(lo >> 12) & 63] + ALPHABET[(lo >> 6) & 63] + ALPHABET[lo & 63]
  );
}

function tailChars(serviceId: string, resourceIds: readonly string[]): string {
  return toBase64Url(utf8(JSON.stringify([serviceId, resourceIds])));
}

/** The opaque id of a slot. Throws only on parts that could never be a slot (empty ids, start out of range). */
export function encodeSlotId(parts: SlotIdParts): string {
  const { serviceId, startMs, resourceIds } = parts;
  checkIds(serviceId, resourceIds);
  return PREFIX + startChars(startMs) + tailChars(serviceId, resourceIds);
}

/**
 * A fast encoder for many slots of one service and resource combination (same output as encodeSlotId):
 * the combination's part is encoded once, each call only encodes the start.
 */
export function slotIdEncoder(serviceId: string, resourceIds: readonly string[]): (startMs: number) => string {
  checkIds(serviceId, resourceIds);
  const tail = tailChars(serviceId, resourceIds);
  return (startMs: number) => PREFIX + startChars(startMs) + tail;
}

/** The parts of a slot id, or null when the id is malformed or not canonical. Never throws. */
export function decodeSlotId(id: unknown): SlotIdParts | null {
  try {
    if (typeof id !== 'string' || !id.startsWith(PREFIX) || id.length > 4096) return null;
    const bytes = fromBase64Url(id.slice(PREFIX.length));
    if (!bytes || bytes.length < 7) return null;
    const startMs = ((bytes[0] << 16) | (bytes[1] << 8) | bytes[2]) * TWO_24 + ((bytes[3] << 16) | (bytes[4] << 8) | bytes[5]);
    const data: unknown = JSON.parse(decoder.decode(bytes.subarray(6)));
    if (!Array.isArray(data) || data.length !== 2) return null;
    const [serviceId, resourceIds] = data as unknown[];
    if (!isPlainId(serviceId) || !Array.isArray(resourceIds) || !resourceIds.every(isPlainId)) return null;
    const parts: SlotIdParts = { serviceId, startMs, resourceIds: [...resourceIds] };
    // Only the canonical spelling is an id (no alternative JSON whitespace or trailing bits).
    return encodeSlotId(parts) === id ? parts : null;
  } catch {
    return null;
  }
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
