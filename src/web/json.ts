/**
 * A JSON answer's text, with what never changes serialised once per process. The core shares some
 * values between answers and freezes them all the way down (the availability cache's presented
 * slots, a service with its availability hint, the `usp` envelope of an operation): such a value's
 * text cannot change either, so it is made on the value's first answer and reused by every later
 * one (a WeakMap, so it goes when the value does). Everything else is serialised as JSON.stringify
 * would, with the same text: member order, skipped `undefined` members, `toJSON`.
 *
 * Walked in JavaScript: the answer itself, a frozen value, and a list whose first item is frozen (the
 * lists the core shares are of one kind: presented slots). Anything else goes to JSON.stringify
 * whole, so an answer that shares nothing (a list of bookings) costs what it cost before.
 */

/** Text of deep-frozen plain values, made once. */
const made = new WeakMap<object, string>();

/** The JSON text of `value`: JSON.stringify(value), with deep-frozen parts reused. */
export function jsonText(value: unknown): string {
  return write(value, 0) ?? 'null';
}

function isPlain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** A list of values the core shares: its first item is frozen. */
function sharedList(v: object): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  const first: unknown = v[0];
  return first !== null && typeof first === 'object' && Object.isFrozen(first);
}

/** The text of `v` (undefined where JSON.stringify leaves a member out). */
function write(v: unknown, depth: number): string | undefined {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const known = made.get(v);
  if (known !== undefined) return known;
  const frozen = Object.isFrozen(v);
  if (!isPlain(v) || (!frozen && depth > 0 && !sharedList(v))) return JSON.stringify(v);
  // Frozen and every object in it kept: this value's text is kept too.
  let stable = frozen;
  let out: string;
  if (Array.isArray(v)) {
    out = '[';
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (i > 0) out += ',';
      out += write(item, depth + 1) ?? 'null';
      if (stable && item !== null && typeof item === 'object' && !made.has(item)) stable = false;
    }
    out += ']';
  } else {
    out = '{';
    let first = true;
    for (const key of Object.keys(v)) {
      const item = (v as Record<string, unknown>)[key];
      const text = write(item, depth + 1);
      if (text === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
      if (stable && item !== null && typeof item === 'object' && !made.has(item)) stable = false;
    }
    out += '}';
  }
  if (stable) made.set(v, out);
  return out;
}
