/**
 * A call's input as the pipeline takes it in: the body validated against the operation's schema
 * (every failure naming its field), the Idempotency-Key and the revision of a conditional write
 * normalized, and the canonical hash that tells a replay from a different request.
 */
import { hash } from 'node:crypto';
import type { z } from 'zod';
import { invalidRequest, type FieldError } from './errors.js';

/** Validate raw input against the operation's schema; every failure names its field. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const value = raw === undefined || raw === null ? {} : raw;
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidRequest('The request body must be a JSON object.');
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors: FieldError[] = parsed.error.issues.map((i) => ({ field: fieldPath(i.path), message: issueText(i) }));
  const first = errors[0];
  throw invalidRequest(`${first.field}: ${first.message}`, errors);
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(body)';
}

function issueText(i: z.core.$ZodIssue): string {
  if (i.code === 'invalid_type' && (i as { input?: unknown }).input === undefined) return 'is required';
  return i.message;
}

/** The Idempotency-Key as given, trimmed; refused unless 1-255 visible ASCII characters. */
export function normalizeIdempotencyKey(key: string | null | undefined): string | undefined {
  if (key === undefined || key === null) return undefined;
  const k = key.trim();
  if (k.length === 0 || k.length > 255 || !/^[\x21-\x7e]+$/.test(k)) {
    throw invalidRequest('Idempotency-Key must be 1-255 visible ASCII characters (a UUID v4 is recommended).', [
      { field: 'idempotency_key', message: 'invalid idempotency key' },
    ]);
  }
  return k;
}

/** Accept `"rev"`, `W/"rev"` and bare `rev`: revisions are opaque strings compared exactly. */
export function normalizeRevision(v: string): string {
  let s = v.trim();
  if (s.startsWith('W/')) s = s.slice(2);
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) s = s.slice(1, -1);
  return s;
}

/** Canonical hash of validated input: object keys sorted, so member order never matters. */
export function hashOf(value: unknown): string {
  return hash('sha256', stableJson(value), 'base64url');
}

/**
 * JSON with object keys sorted and undefined members left out. Stored request hashes are compared
 * with new ones, so the text must never change; built in one pass (no intermediate arrays per object).
 */
function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += i === 0 ? stableJson(v[i]) : `,${stableJson(v[i])}`;
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = '{';
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(k)}:${stableJson(x)}`;
  }
  return `${out}}`;
}
