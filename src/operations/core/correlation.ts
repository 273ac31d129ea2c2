/**
 * Correlation ids (the MCP binding's `_meta.usp.correlation_id`, REST's `USP-Correlation-Id`): an
 * optional id the caller chooses to join its logs with ours. Both doors carry it through every
 * answer, result or error, and the pipeline writes it into every log line about the call.
 */
import { randomUUID } from 'node:crypto';

/** Longest caller id we carry; longer or non-printable ones are replaced by a fresh one. */
const MAX_CORRELATION_ID_CHARS = 256;

/** The caller's id when it is usable (visible ASCII, at most 256 characters), else undefined. */
export function callerCorrelationId(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const v = raw.trim();
  return v.length > 0 && v.length <= MAX_CORRELATION_ID_CHARS && /^[\x21-\x7e]+$/.test(v) ? v : undefined;
}

/** The first usable id among the candidates, or a fresh UUID. */
export function correlationIdOf(...candidates: unknown[]): string {
  for (const c of candidates) {
    const v = callerCorrelationId(c);
    if (v) return v;
  }
  return randomUUID();
}
