/**
 * What a tool call's answer said of its rate limit, carried from the tool handler (run inside the
 * SDK) out to the HTTP answer's RateLimit fields. The pipeline returns the quota in its answer
 * (`OperationResponse.rate`) and writes nothing into the request; this note is the door's own, one
 * per HTTP request, made beside the request's evidence and written only here.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { OperationResponse } from '../../operations/index.js';
import type { RateQuota } from '../../security/index.js';

export interface RateNote {
  /** What the call's subjects have left (0 when refused). */
  quota?: RateQuota;
  /** Seconds to wait, when the call was refused for its rate (the HTTP answer's Retry-After). */
  retryAfter?: number;
}

/** Keep what the pipeline's answer says of the call's rate limit. */
export function noteRate(note: RateNote | undefined, res: OperationResponse): void {
  if (!note || !res.rate) return;
  note.quota = res.rate;
  if (!res.ok && res.error.code === 'rate_limited') note.retryAfter = res.error.retryAfter;
}

/** The note an HTTP request's auth info carries (none on stdio or in-process). */
export function rateNoteOf(authInfo: Pick<AuthInfo, 'extra'> | undefined): RateNote | undefined {
  return authInfo?.extra?.rateNote as RateNote | undefined;
}
