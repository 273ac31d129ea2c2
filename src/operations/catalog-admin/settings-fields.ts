/**
 * The settings as a form sees them, read from the business file's schema: each member's name, kind,
 * description, default and choices. The dashboard's settings screen is built from this list, so a
 * setting added to the schema has its field without an edit of the screen.
 */
import { z } from 'zod';
import { BusinessFileSchema } from '../../domain/index.js';

export interface SettingField {
  name: string;
  /** `integer` and `text` are typed in; `boolean` and `choice` are chosen; `json` is an object written as JSON. */
  kind: 'integer' | 'boolean' | 'choice' | 'text' | 'json';
  description: string;
  default?: unknown;
  choices?: readonly string[];
}

type Json = Record<string, any>;

function kindOf(p: Json): SettingField['kind'] {
  if (p.enum) return 'choice';
  if (p.type === 'integer' || p.type === 'number') return 'integer';
  if (p.type === 'boolean') return 'boolean';
  if (p.type === 'string') return 'text';
  return 'json';
}

let fields: readonly SettingField[] | undefined;

export function settingsFields(): readonly SettingField[] {
  fields ??= Object.entries(
    ((z.toJSONSchema(BusinessFileSchema.shape.settings, { io: 'input' }) as Json).properties ?? {}) as Record<
      string,
      Json
    >,
  ).map(([name, p]) => ({
    name,
    kind: kindOf(p),
    description: String(p.description ?? ''),
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.enum ? { choices: p.enum.map(String) } : {}),
  }));
  return fields;
}
