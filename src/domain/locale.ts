/** The language a person asked for, as an HTTP header states it (RFC 9110 section 12.5.4). */

/** Languages found by Accept-Language value (null: none Intl can format): asked on every call, most often with one value. */
const found = new Map<string, string | null>();
/** Distinct values remembered (the oldest is forgotten first). */
const MAX_FOUND = 256;

/** The first language of Accept-Language that Intl can format (by weight, then order), else the fallback. */
export function negotiateLocale<F extends string | null | undefined>(
  acceptLanguage: string | undefined,
  fallback: F,
): string | F {
  if (!acceptLanguage) return fallback;
  const header = acceptLanguage.slice(0, 500);
  let language = found.get(header);
  if (language === undefined) {
    language = firstFormattable(header);
    if (found.size >= MAX_FOUND) found.delete(found.keys().next().value!);
    found.set(header, language);
  }
  return language ?? fallback;
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
