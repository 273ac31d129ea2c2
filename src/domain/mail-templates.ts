/**
 * Where a business's own mail templates may be: a relative path to a `.txt` file inside the
 * templates folder the operator names when starting the server (`--mail-templates-dir`, else the
 * business file's folder). Whoever edits the settings (the admin API, the dashboard, a business
 * file, an import) names a file there and nothing else: no absolute path, no `..` or hidden
 * segment, no backslash, colon or control character. The server also resolves the file's real
 * path at start and reads it only when it is inside that folder (a link out of it is ignored).
 */
import { z } from 'zod';
import { doc } from './business-fields.js';

export const TEMPLATE_PATH_RULE =
  "a relative path to a .txt file inside the templates folder (no leading '/', no '..' or hidden segment, no '\\' or ':')";

/** True for a path the rule above allows. */
export function isTemplatePath(p: string): boolean {
  if (p.length === 0 || p.length > 500) return false;
  if (/[\u0000-\u001f\u007f-\u009f\\:]/.test(p) || p.startsWith('/')) return false;
  if (p.split('/').some((segment) => segment === '' || segment.startsWith('.'))) return false;
  return /\.txt$/i.test(p);
}

export const MailTemplatesSchema = doc(
  z.record(
    z.string().regex(/^[a-z_]+$/),
    z.string().min(1).max(500).refine(isTemplatePath, `must be ${TEMPLATE_PATH_RULE}`),
  ),
  "Message templates of this business by message kind (booking_confirmed, reminder, ...): each a path, relative to the server's templates folder (--mail-templates-dir, else the business file's folder), of a .txt file replacing the built-in text.",
).optional();

/**
 * A stored settings object without the template paths the rule refuses (stored before the rule
 * existed): the start goes on with the built-in text for them rather than failing on old data.
 */
export function withoutUnsafeTemplates(settings: unknown): { settings: unknown; dropped: string[] } {
  if (!settings || typeof settings !== 'object' || Array.isArray(settings)) return { settings, dropped: [] };
  const s = settings as Record<string, unknown>;
  const t = s.mail_templates;
  if (!t || typeof t !== 'object' || Array.isArray(t)) return { settings, dropped: [] };
  const kept = Object.entries(t as Record<string, unknown>).filter(
    ([, p]) => typeof p === 'string' && isTemplatePath(p),
  );
  const dropped = Object.keys(t).filter((k) => !kept.some(([x]) => x === k));
  return dropped.length === 0
    ? { settings, dropped }
    : { settings: { ...s, mail_templates: Object.fromEntries(kept) }, dropped };
}
