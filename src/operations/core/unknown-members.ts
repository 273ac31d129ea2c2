/**
 * Members of a call's input that its schema does not know. The protocol has receivers ignore
 * unrecognized members (forward compatibility), and the schemas drop them; a door that answers a
 * model says which it ignored, and the member it probably meant, so a misspelt `buyer.phone` is
 * never silently lost.
 */
import { z } from 'zod';
import { warningMessage, type Message } from '../../domain/index.js';

type Shape = Record<string, z.ZodType>;

/** The object shape behind optional, nullable, default and pipe wrappers; null when not an object. */
function shapeOf(schema: z.ZodType): Shape | null {
  let s: any = schema;
  for (let i = 0; i < 8 && s; i++) {
    if (s instanceof z.ZodObject) return s.shape as Shape;
    const def = s._zod?.def;
    s = def?.innerType ?? def?.in ?? def?.schema;
  }
  return null;
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length];
}

/** The known member a name most likely meant: one it starts or ends with (`phone`, `service_ids`), or a couple of edits away. */
export function likelyMember(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const prefixed = known.find((k) => k.startsWith(lower) || lower.startsWith(k) || lower.endsWith(`_${k}`));
  if (prefixed) return prefixed;
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const dist = distance(lower, k);
    if (dist < bestD) [best, bestD] = [k, dist];
  }
  return best;
}

/** Every unknown member of `raw` under `schema` (nested objects included), as paths with a suggestion. */
export function unknownMembers(
  schema: z.ZodType,
  raw: unknown,
  ignore: readonly string[] = [],
): Array<{ path: string; suggestion?: string }> {
  const out: Array<{ path: string; suggestion?: string }> = [];
  const walk = (s: z.ZodType, v: unknown, path: string) => {
    const shape = shapeOf(s);
    if (!shape || !v || typeof v !== 'object' || Array.isArray(v)) return;
    const known = Object.keys(shape);
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      if (shape[k]) walk(shape[k], child, p);
      else if (!(path === '' && ignore.includes(k))) out.push({ path: p, suggestion: likelyMember(k, known) });
    }
  };
  walk(schema, raw, '');
  return out.slice(0, 20);
}

/** The warning for each unknown member: ignored, and what was probably meant. */
export function unknownMemberWarnings(schema: z.ZodType, raw: unknown, ignore: readonly string[] = []): Message[] {
  return unknownMembers(schema, raw, ignore).map(({ path, suggestion }) => {
    const parent = path.includes('.') ? `${path.slice(0, path.lastIndexOf('.'))}.` : '';
    return warningMessage(
      'unknown_member',
      `${path} is not a member of this call and was ignored${suggestion ? `: did you mean ${parent}${suggestion}?` : '.'}`,
      `$.${path}`,
    );
  });
}
