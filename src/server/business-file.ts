/**
 * The business file: the JSON document that describes one business (locations, resources,
 * services, settings). The server reads and validates it once at startup and reports every
 * problem with the JSON path of the offending member, so that the operator can fix the file in
 * one pass. The shape and the rules are the domain's (src/domain/business.ts and
 * business-rules.ts); this file only reads, parses and reports:
 *  1. the domain's zod schema checks shapes, single values and per-object rules (the USP §3.11
 *     payment/pricing matrix, duration exclusivity, capacity, closes > opens, ...), for every
 *     object whose own shape is valid even when a sibling object is broken;
 *  2. the domain's whole-file rules run on the raw input (unique ids, references between services,
 *     resources and locations, one currency), so they are reported alongside shape errors.
 *
 * The same zod schema is emitted as a JSON Schema (`businessFileJsonSchema`), which editors can
 * use through the file's `$schema` member.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  BusinessFileSchema,
  DurationSchema,
  ServiceSchema,
  businessDocs,
  checkBusinessDocument,
  DURATION_RULES_JSON_SCHEMA,
  SERVICE_RULES_JSON_SCHEMA,
  type BusinessDef,
} from '../domain/index.js';

// ---------------------------------------------------------------------------------------------
// Errors

export interface BusinessFileIssue {
  /** JSON path of the offending member, e.g. `services[2].policies.payment_timing`. */
  path: string;
  message: string;
}

/** Path used for issues about the file itself (unreadable, not JSON). */
const FILE_PATH = '(file)';

export class BusinessFileError extends Error {
  readonly issues: BusinessFileIssue[];
  readonly source?: string;

  constructor(issues: BusinessFileIssue[], source?: string) {
    super(formatMessage(issues, source));
    this.name = 'BusinessFileError';
    this.issues = issues;
    this.source = source;
  }
}

function formatMessage(issues: BusinessFileIssue[], source?: string): string {
  const prefix = source ? `${source}: ` : '';
  if (issues.length === 1 && issues[0].path === FILE_PATH) return `${prefix}${issues[0].message}`;
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  const lines = issues.map((issue) => `  ${issue.path}: ${issue.message}`);
  return [`${prefix}invalid business file (${count})`, ...lines].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Parsing

/**
 * Validates a parsed business file and returns the business with every setting filled in.
 * Throws a BusinessFileError that lists every problem found.
 */
export function parseBusinessFile(json: unknown, source?: string): BusinessDef {
  const checked = checkBusinessDocument(json);
  if (!checked.ok) throw new BusinessFileError(checked.issues, source);
  return checked.def;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'cannot read the business file: no such file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot read the business file: permission denied';
    case 'EISDIR':
      return 'cannot read the business file: it is a directory';
    default:
      return `cannot read the business file: ${oneLine(err instanceof Error ? err.message : String(err))}`;
  }
}

function jsonFailure(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(message);
  let where = '';
  if (pos) {
    const before = text.slice(0, Number(pos[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    where = ` at line ${line}, column ${column}`;
  }
  const detail = message.replace(/\s*in JSON at position \d+/i, '').replace(/\s*\(line \d+ column \d+\)/i, '');
  return `not valid JSON${where}: ${oneLine(detail)}`;
}

/** Reads, parses and validates a business file; every failure is a BusinessFileError. */
export async function loadBusinessFile(path: string): Promise<BusinessDef> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new BusinessFileError([{ path: FILE_PATH, message: readFailure(err) }], path);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new BusinessFileError([{ path: FILE_PATH, message: jsonFailure(err, text) }], path);
  }
  return parseBusinessFile(json, path);
}

// ---------------------------------------------------------------------------------------------
// JSON Schema

export const BUSINESS_FILE_SCHEMA_ID = 'https://usp-server.dev/schemas/business-file.json';

type JsonObject = Record<string, unknown>;

/** The cross-field rules that JSON Schema can express (from the domain's rules), added to the emitted definitions. */
function addConditionals(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  if (ctx.zodSchema === DurationSchema) ctx.jsonSchema.oneOf = DURATION_RULES_JSON_SCHEMA;
  else if (ctx.zodSchema === ServiceSchema) ctx.jsonSchema.allOf = SERVICE_RULES_JSON_SCHEMA;
}

function buildJsonSchema(): JsonObject {
  const generated = z.toJSONSchema(BusinessFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
    metadata: businessDocs,
    unrepresentable: 'any',
    override: (ctx) => addConditionals(ctx as { zodSchema: unknown; jsonSchema: JsonObject }),
  }) as JsonObject;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: BUSINESS_FILE_SCHEMA_ID,
    title: 'USP server business file',
    description:
      'Describes one business for usp-server: its identity, time zone and currency, locations, resources with their schedules, ' +
      'the services it offers (USP Service fields plus delivery requirements) and server settings. Some cross-references ' +
      '(resource and location ids, unique ids, one currency) are checked only by the server.',
    ...rest,
  };
}

/** JSON Schema (draft 2020-12) of the business file, generated from the zod schema. */
export const businessFileJsonSchema: Readonly<Record<string, unknown>> = buildJsonSchema();
