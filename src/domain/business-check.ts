/**
 * Checking a whole business definition, wherever it comes from (the business file, an import, an
 * admin edit applied to the stored definition): the zod schema checks shapes, single values and
 * per-object rules for every object whose own shape is valid, the whole-file rules (unique ids,
 * references, one currency) run on the raw input beside them, and two resource combinations may
 * not share a slot id tag. Every problem is reported once, by the JSON path of its member, so the
 * same wording reaches the file's author and the dashboard's user.
 */
import type { z } from 'zod';
import { BusinessFileSchema, type BusinessDef } from './business.js';
import { formatPath, wholeFileRules } from './business-rules.js';
import { findSlotTagClash } from './slot-tags.js';

export interface BusinessIssue {
  /** JSON path of the offending member, e.g. `services[2].policies.payment_timing`. */
  path: string;
  message: string;
}

const UNKNOWN_MEMBER_HINTS: Record<string, string> = {
  business_id: 'the server fills business_id in',
  availability_hint: 'the server computes availability_hint',
  resources: 'the published resources list is derived from requirements',
  locations: 'the published locations list is derived from location_ids',
  images: 'use media instead of the deprecated images',
};

function zodIssues(error: z.ZodError): BusinessIssue[] {
  const out: BusinessIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = issue.path.length > 0 ? UNKNOWN_MEMBER_HINTS[key] : undefined;
        out.push({
          path: formatPath([...issue.path, key]),
          message: hint ? `unknown member (${hint})` : 'unknown member',
        });
      }
    } else if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      out.push({
        path: formatPath(issue.path),
        message: `invalid key: ${issue.issues.map((i) => i.message).join('; ')}`,
      });
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}

/** Friendlier wording for a few of zod's default messages. */
const errorMap: z.core.$ZodErrorMap = (iss) => {
  if (iss.code === 'invalid_type' && iss.input === undefined) return 'is required';
  return undefined;
};

/** The definition with every setting filled in, or every problem found in it (at least one). */
export function checkBusinessDocument(
  json: unknown,
): { ok: true; def: BusinessDef } | { ok: false; issues: BusinessIssue[] } {
  const result = BusinessFileSchema.safeParse(json, { error: errorMap });
  const issues: BusinessIssue[] = result.success ? [] : zodIssues(result.error);
  wholeFileRules(json, (path, message) => issues.push({ path: formatPath(path), message }));

  // One report per path and message, in document order of discovery.
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (unique.length > 0 || !result.success) return { ok: false, issues: unique };

  const { $schema: _ignored, ...def } = result.data;
  // Slot ids name resource combinations by a 48-bit tag: refuse a definition in which two would share one.
  const clash = findSlotTagClash(def.services, new Map(def.resources.map((r) => [r.id, r] as const)));
  if (clash) {
    const at = def.services.findIndex((s) => s.id === clash.second.serviceId);
    return { ok: false, issues: [{ path: `services[${at}]`, message: clash.message }] };
  }
  return { ok: true, def };
}
