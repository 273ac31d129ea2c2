/** The language a person asked for, as an HTTP header states it (RFC 9110 section 12.5.4). */

import { memoByString } from './memo.js';

/** The language found for an Accept-Language value (null: none Intl can format), 256 values kept: asked on every call. */
const found = memoByString(256, firstFormattable);

/** The first language of Accept-Language that Intl can format (by weight, then order), else the fallback. */
export function negotiateLocale<F extends string | null | undefined>(
  acceptLanguage: string | undefined,
  fallback: F,
): string | F {
  if (!acceptLanguage) return fallback;
  return found(acceptLanguage.slice(0, 500)) ?? fallback;
}

function firstFormattable(header: string): string | null {
  const wanted = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1, i };
    })
    .filter((w) => w.tag && w.tag !== '*' && Number.isFinite(w.q) && w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf([w.tag]);
      if (supported) return supported;
    } catch {
      // not a language tag: try the next one
    }
  }
  return null;
}
