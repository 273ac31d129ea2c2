/**
 * A buyer's personal data, found and erased wherever it is kept as JSON: the person is named by an
 * email and/or a phone number, and every object that carries either (a buyer, a recipient, an
 * account) is theirs. Erasing replaces the person with ERASED_BUYER and drops what only makes sense
 * for them (a booking's notes and delivery address) while times, money and ids stay as they were.
 */
import type { Buyer } from './records.js';

/** Who a request for personal data is about: a lower-cased email, a phone's digits, or both. */
export interface Person {
  email?: string;
  phone?: string;
  /** The phone as it was typed, which stored records may spell the same way. */
  phoneAsTyped?: string;
}

/** What stands in for an erased person: a valid Buyer (the spec requires names and an email) at a reserved domain (RFC 2606). */
export const ERASED_BUYER: Readonly<Buyer> = Object.freeze({
  first_name: 'Erased',
  last_name: 'Erased',
  email: 'erased@erased.invalid',
});

export function normalizeEmail(s: string): string {
  return s.trim().toLowerCase();
}

/** A phone number's digits only, so "+1 (555) 010-2030" and "+15550102030" are the same person. */
export function normalizePhone(s: string): string {
  return s.replace(/\D/g, '');
}

/** The person named by an email and/or phone as a caller typed them; null when neither is usable. */
export function personOf(email: string | undefined, phone: string | undefined): Person | null {
  const p: Person = {};
  if (email && email.trim()) p.email = normalizeEmail(email);
  if (phone && normalizePhone(phone).length >= 5) {
    p.phone = normalizePhone(phone);
    p.phoneAsTyped = phone.trim().toLowerCase();
  }
  return p.email || p.phone ? p : null;
}

/**
 * The strings a row must contain to possibly name the person (a cheap filter before parsing): a
 * row holding one of them is parsed and checked with `isPerson`. For a phone, besides its digits
 * and its spelling as typed, its last four digits, which every common way of writing the number
 * keeps together ("+1 212 555 0134", "(212) 555-0134", "212.555.0134"), so a number typed one way
 * finds it stored another.
 */
export function personNeedles(p: Person): string[] {
  const out: string[] = [];
  if (p.email) out.push(p.email);
  if (p.phone) {
    out.push(p.phone, phoneOnlyEmail(p.phone));
    if (p.phoneAsTyped && p.phoneAsTyped !== p.phone) out.push(p.phoneAsTyped);
    if (p.phone.length >= 7) out.push(p.phone.slice(-4));
  }
  return out;
}

/** The placeholder email of a walk-in who gave only a phone number (reserved TLD: never mailed). */
export function phoneOnlyEmail(phone: string): string {
  return `phone-${normalizePhone(phone)}@walk-in.invalid`;
}

const PHONE_MEMBERS = ['phone_number', 'phone'] as const;

/**
 * Two spellings of a phone are the same number when their digits are, or when one ends with the
 * other and the shorter has at least seven digits (a number written with and without its country code).
 */
export function samePhone(a: string, b: string): boolean {
  const x = normalizePhone(a);
  const y = normalizePhone(b);
  if (x === y) return x.length > 0;
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return short.length >= 7 && long.endsWith(short);
}

/** True when this one object (not its members) is the person: its email or phone is theirs. */
export function isPerson(o: unknown, p: Person): boolean {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
  const r = o as Record<string, unknown>;
  if (p.email && typeof r.email === 'string' && normalizeEmail(r.email) === p.email) return true;
  if (p.phone) {
    for (const k of PHONE_MEMBERS) if (typeof r[k] === 'string' && samePhone(r[k] as string, p.phone)) return true;
    const placeholder =
      typeof r.email === 'string' ? /^phone-(\d+)@walk-in\.invalid$/.exec(normalizeEmail(r.email)) : null;
    if (placeholder && samePhone(placeholder[1], p.phone)) return true;
  }
  return false;
}

/** True when the person appears anywhere in the value. */
export function mentionsPerson(value: unknown, p: Person): boolean {
  if (isPerson(value, p)) return true;
  if (Array.isArray(value)) return value.some((v) => mentionsPerson(v, p));
  if (value && typeof value === 'object') return Object.values(value).some((v) => mentionsPerson(v, p));
  return false;
}

/** Members that hold what the person told us about themselves when the object is theirs (a booking, an entry). */
const OWNED_MEMBERS = ['notes', 'delivery_address', 'recipient'] as const;

/**
 * The value with the person erased: each object that is the person becomes ERASED_BUYER, and an
 * object whose `buyer` is the person also loses its notes, delivery address and recipient (which
 * the buyer gave). `changed` is false when the person was not there.
 */
export function erasePerson<T>(value: T, p: Person): { value: T; changed: boolean } {
  let changed = false;
  const names = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (isPerson(v, p)) {
      changed = true;
      const r = v as Record<string, unknown>;
      for (const k of NAME_MEMBERS)
        if (typeof r[k] === 'string')
          for (const w of (r[k] as string).split(/\s+/)) if (w.length >= 3) names.add(w.toLowerCase());
      return { ...ERASED_BUYER };
    }
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const r = v as Record<string, unknown>;
    const ownsIt = isPerson(r.buyer, p);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(r)) {
      if (ownsIt && (OWNED_MEMBERS as readonly string[]).includes(k)) {
        changed = true;
        if (k === 'recipient') out[k] = { ...ERASED_BUYER };
        continue;
      }
      out[k] = walk(x);
    }
    return out;
  };
  let next = walk(value) as T;
  // Free text beside the person (a cancellation's reason, a message) may spell their name: it goes too.
  if (names.size > 0) next = redactNames(next, [...names]) as T;
  return { value: changed ? next : value, changed };
}

const NAME_MEMBERS = ['first_name', 'last_name', 'name'] as const;

/** Members that hold free text a person's name may be written in (never ids, times or codes). */
const FREE_TEXT_MEMBERS = new Set(['reason', 'content', 'notes', 'note', 'message', 'detail', 'description']);

function redactNames(v: unknown, names: readonly string[], freeText = false): unknown {
  if (typeof v === 'string') {
    if (!freeText) return v;
    let out = v;
    for (const n of names)
      out = out.replace(new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'gi'), '[erased]');
    return out;
  }
  if (Array.isArray(v)) return v.map((x) => redactNames(x, names, freeText));
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactNames(x, names, FREE_TEXT_MEMBERS.has(k))]));
}

/** A name folded for search: accents dropped (NFD marks), lower case, spaces collapsed; "José" and "jose" fold alike. */
export function foldName(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** True when the folded query is part of the person's first name, last name or full name ("ana sil" finds Ana Silva). */
export function nameMatches(person: { first_name?: unknown; last_name?: unknown }, query: string): boolean {
  const q = foldName(query);
  if (!q) return false;
  const first = typeof person.first_name === 'string' ? foldName(person.first_name) : '';
  const last = typeof person.last_name === 'string' ? foldName(person.last_name) : '';
  return `${first} ${last}`.includes(q) || `${last} ${first}`.includes(q);
}
