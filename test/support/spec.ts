/**
 * Conformance harness: loads the official USP artifacts (JSON Schemas, OpenAPI,
 * OpenRPC, test vectors) from the shared, read-only reference folder and exposes
 * validators for the project's conformance tests.
 *
 * The artifacts are never copied into the repository. They are looked up at
 * `../shared/usp-spec` relative to the repository root, or at `$USP_SPEC_DIR`.
 * When absent, every `describeConformance` block is skipped visibly.
 *
 * Project decision D17: the reverse-domain key pattern in the official
 * `schemas/usp.json` admits no hyphen, so the spec's own `dev.usp-protocol.*`
 * keys fail it. On load, exactly that pattern string is widened to admit
 * hyphens, and a single note is printed. Nothing else is changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = any;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS with `exports.default`; normalize the interop shape.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);

// ---------------------------------------------------------------------------
// Locating the artifacts
// ---------------------------------------------------------------------------

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const candidateDir = process.env.USP_SPEC_DIR
  ? path.resolve(repoRoot, process.env.USP_SPEC_DIR)
  : path.resolve(repoRoot, '../shared/usp-spec');

function looksLikeSpec(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, 'schemas')).isDirectory();
  } catch {
    return false;
  }
}

/** Folder holding the official USP artifacts, or null when they are not available. */
export const specDir: string | null = looksLikeSpec(candidateDir) ? candidateDir : null;

/** One-line human note when the artifacts are absent (null when present). */
export const specNote: string | null = specDir
  ? null
  : `official USP artifacts not found at ${candidateDir} (set USP_SPEC_DIR to override); conformance tests skipped`;

let skipNoteShown = false;

/**
 * `describe` when the official artifacts are present; otherwise `describe.skip`
 * with the reason in the title and printed once, so the skip is visible.
 */
export function describeConformance(name: string, fn: () => void): void {
  if (specDir) {
    describe(name, fn);
    return;
  }
  noteSkipOnce();
  describe.skip(`${name} [SKIPPED: ${specNote}]`, fn);
}

function noteSkipOnce(): void {
  if (!skipNoteShown) {
    skipNoteShown = true;
    console.warn(`[usp-spec] ${specNote}`);
  }
}

/**
 * For a behavioural test that also checks a shape against the official artifacts: the check's
 * errors when the artifacts are present; none (and the skip note, once) when they are absent, so
 * the test's own assertions still run in a clone without the spec.
 */
export function specErrors(check: () => string[]): string[] {
  if (specDir) return check();
  noteSkipOnce();
  return [];
}

function requireSpecDir(): string {
  if (!specDir) throw new Error(specNote ?? 'official USP artifacts not found');
  return specDir;
}

// ---------------------------------------------------------------------------
// Loading (with the D17 widening)
// ---------------------------------------------------------------------------

/** The official, defective key pattern (no hyphen allowed). */
export const D17_ORIGINAL_PATTERN = '^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$';
/** The widened pattern used instead (project decision D17). */
export const D17_WIDENED_PATTERN = '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$';

export const OPENAPI_ID = 'https://usp-protocol.dev/openapi/usp-rest.json';
export const OPENRPC_ID = 'https://usp-protocol.dev/openrpc/usp-mcp.json';

/**
 * `schemas/paid_bookings.json` composes (root `allOf`) the external UCP checkout
 * schema, which is not part of the USP artifacts. Ajv compiles a document's root
 * before any of its `$defs`, so without a target for that URI no
 * `paid_bookings.json#/$defs/...` could be used at all. A permissive placeholder
 * (accepts any value) is registered under that URI: validating against
 * paid_bookings checks the USP extension members only, not the UCP checkout itself.
 */
export const EXTERNAL_PLACEHOLDERS: readonly string[] = ['https://ucp.dev/schemas/shopping/checkout.json'];

let d17NoteShown = false;

/** Replaces every string equal to the D17 pattern, in place. Returns the count. */
function widenD17(node: Json): number {
  let count = 0;
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) {
        if (n[i] === D17_ORIGINAL_PATTERN) {
          n[i] = D17_WIDENED_PATTERN;
          count++;
        } else walk(n[i]);
      }
    } else if (n && typeof n === 'object') {
      for (const k of Object.keys(n)) {
        if (n[k] === D17_ORIGINAL_PATTERN) {
          n[k] = D17_WIDENED_PATTERN;
          count++;
        } else walk(n[k]);
      }
    }
  };
  walk(node);
  return count;
}

function readJson(file: string): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

interface LoadedSpec {
  /** file name (e.g. `booking.json`) -> parsed schema */
  schemas: Map<string, Json>;
  openapi: Json;
  openrpc: Json;
  widened: number;
}

function loadSpec(widen: boolean): LoadedSpec {
  const dir = requireSpecDir();
  const schemaDir = path.join(dir, 'schemas');
  const schemas = new Map<string, Json>();
  let widened = 0;
  for (const f of fs
    .readdirSync(schemaDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const s = readJson(path.join(schemaDir, f));
    if (widen) widened += widenD17(s);
    schemas.set(f, s);
  }
  const openapi = readJson(path.join(dir, 'openapi', 'usp-rest.json'));
  const openrpc = readJson(path.join(dir, 'openrpc', 'usp-mcp.json'));
  if (widen) {
    widened += widenD17(openapi);
    widened += widenD17(openrpc);
  }
  return { schemas, openapi, openrpc, widened };
}

let cachedSpec: LoadedSpec | undefined;
function spec(): LoadedSpec {
  if (!cachedSpec) {
    cachedSpec = loadSpec(true);
    if (cachedSpec.widened > 0 && !d17NoteShown) {
      d17NoteShown = true;
      console.warn(
        `[usp-spec] D17: widened ${cachedSpec.widened} occurrence(s) of the official key pattern ` +
          `${D17_ORIGINAL_PATTERN} to ${D17_WIDENED_PATTERN} so dev.usp-protocol.* keys validate; nothing else changed`,
      );
    }
  }
  return cachedSpec;
}

/**
 * OpenAPI 3.0 `nullable: true` -> JSON Schema type union, on the given (copied)
 * document. OpenAPI 3.1 documents normally don't use it; converted only if present.
 */
function convertNullable(node: Json): number {
  let count = 0;
  const walk = (n: Json): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      if (n.nullable === true) {
        if (typeof n.type === 'string') n.type = [n.type, 'null'];
        else if (Array.isArray(n.type) && !n.type.includes('null')) n.type = [...n.type, 'null'];
        else if (n.type === undefined) {
          // no type constraint: nothing to widen
        }
        if (Array.isArray(n.enum) && !n.enum.includes(null)) n.enum = [...n.enum, null];
        delete n.nullable;
        count++;
      }
      for (const k of Object.keys(n)) walk(n[k]);
    }
  };
  walk(node);
  return count;
}

/** How many occurrences of the D17 pattern were widened on load (4 in the 2026-08-20 files). */
export function d17WidenedCount(): number {
  return spec().widened;
}

/** Map of file name (`booking.json`, also `services/booking.json`) -> absolute `$id`. */
function schemaIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [file, s] of spec().schemas) {
    const id: string = s.$id;
    ids.set(file, id);
    const m = /^https:\/\/usp-protocol\.dev\/schemas\/(.+)$/.exec(id);
    if (m) ids.set(m[1], id);
  }
  return ids;
}

/**
 * A fresh Ajv2020 instance (strict: false, allErrors: true, formats) holding
 * every `schemas/*.json` plus the OpenAPI document (as `OPENAPI_ID`) and the
 * OpenRPC document (as `OPENRPC_ID`). `widenKeyPatterns: false` loads the
 * official files unmodified (used only to demonstrate D17).
 */
export function createSpecAjv(opts: { widenKeyPatterns?: boolean } = {}): Ajv2020 {
  const widen = opts.widenKeyPatterns ?? true;
  const loaded = widen ? spec() : loadSpec(false);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const s of loaded.schemas.values()) ajv.addSchema(structuredClone(s));
  for (const id of EXTERNAL_PLACEHOLDERS) {
    ajv.addSchema({ $id: id, description: 'placeholder for an external schema not shipped with USP' });
  }
  const openapi = structuredClone(loaded.openapi);
  convertNullable(openapi);
  // Whole API documents are not JSON Schemas: skip meta-schema validation.
  ajv.addSchema({ ...openapi, $id: OPENAPI_ID }, undefined, undefined, false);
  const openrpc = structuredClone(loaded.openrpc);
  convertNullable(openrpc);
  ajv.addSchema({ ...openrpc, $id: OPENRPC_ID }, undefined, undefined, false);
  return ajv;
}

let cachedAjv: Ajv2020 | undefined;
/** The shared, lazily created Ajv instance (D17 applied). */
export function specAjv(): Ajv2020 {
  cachedAjv ??= createSpecAjv();
  return cachedAjv;
}

const validatorCache = new Map<string, ValidateFunction>();

function validatorFor(uri: string, ajv: Ajv2020 = specAjv()): ValidateFunction {
  const useCache = ajv === cachedAjv;
  const hit = useCache ? validatorCache.get(uri) : undefined;
  if (hit) return hit;
  let v: ValidateFunction | undefined;
  try {
    v = ajv.getSchema(uri) as ValidateFunction | undefined;
  } catch (e) {
    throw new Error(`cannot compile ${uri}: ${(e as Error).message}`);
  }
  if (!v) throw new Error(`schema not found: ${uri}`);
  if (useCache) validatorCache.set(uri, v);
  return v;
}

/** JSON-pointer segment, URI-fragment encoded. */
function seg(s: string | number): string {
  return encodeURIComponent(String(s).replace(/~/g, '~0').replace(/\//g, '~1'));
}
function pointer(...parts: Array<string | number>): string {
  return '#/' + parts.map(seg).join('/');
}

/** Human-readable error strings: `<instancePath> <message>` (+ useful params). */
export function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  if (!errors) return [];
  return errors.map((e) => {
    const where = e.instancePath || '/';
    const extra: string[] = [];
    const p = e.params as Record<string, unknown>;
    if (p.additionalProperty !== undefined) extra.push(`additional property "${String(p.additionalProperty)}"`);
    if (p.allowedValues !== undefined) extra.push(`allowed: ${JSON.stringify(p.allowedValues)}`);
    if ((e as { propertyName?: string }).propertyName !== undefined)
      extra.push(`property name "${(e as { propertyName?: string }).propertyName}"`);
    else if (p.propertyName !== undefined) extra.push(`property name "${String(p.propertyName)}"`);
    return `${where} ${e.message ?? e.keyword}${extra.length ? ` (${extra.join('; ')})` : ''}`;
  });
}

function run(v: ValidateFunction, value: unknown): string[] {
  return v(value) ? [] : formatErrors(v.errors);
}

/** Throws listing every error when `errors` is non-empty. */
export function assertValid(errors: string[], label: string): void {
  if (errors.length === 0) return;
  throw new Error(`${label}: ${errors.length} schema error(s)\n  - ${errors.join('\n  - ')}`);
}

// ---------------------------------------------------------------------------
// JSON Schema files
// ---------------------------------------------------------------------------

/** Absolute URI of `<file>#/$defs/<def>` (file as `profile.json`, `services/booking.json` or an absolute `$id`). */
export function schemaDefUri(file: string, def?: string): string {
  const id = /^https?:/.test(file) ? file : schemaIds().get(file);
  if (!id) throw new Error(`unknown schema file ${file} (known: ${[...schemaIds().keys()].join(', ')})`);
  return def === undefined ? id : `${id}${pointer('$defs', def)}`;
}

/** Validates `value` against `<file>#/$defs/<def>` of the official schemas. */
export function validateSchemaDef(file: string, def: string, value: unknown): string[] {
  return run(validatorFor(schemaDefUri(file, def)), value);
}

/** Validates against an arbitrary absolute schema URI (may carry a JSON-pointer fragment). */
export function validateSchemaUri(uri: string, value: unknown): string[] {
  return run(validatorFor(uri), value);
}

/** The parsed official schema files (D17 applied), keyed by file name. Do not mutate. */
export function specSchemas(): ReadonlyMap<string, Json> {
  return spec().schemas;
}

// ---------------------------------------------------------------------------
// OpenAPI (REST binding)
// ---------------------------------------------------------------------------

/** The parsed OpenAPI document (D17 applied). Do not mutate. */
export function openapiDoc(): Json {
  return spec().openapi;
}

/** Resolves a local `#/...` JSON pointer inside a document. */
function getLocal(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`not a local ref: ${ref}`);
  let node = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = node?.[key];
    if (node === undefined) throw new Error(`unresolvable ref ${ref}`);
  }
  return node;
}

function pointerToParts(ref: string): string[] {
  return ref
    .slice(2)
    .split('/')
    .map((raw) => decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function findOperation(method: string, pathTemplate: string): { op: Json; parts: string[] } | string {
  const paths = openapiDoc().paths ?? {};
  const item = paths[pathTemplate];
  if (!item) return `OpenAPI documents no path ${pathTemplate}`;
  const m = method.toLowerCase();
  const op = item[m];
  if (!op || typeof op !== 'object' || !op.responses)
    return `OpenAPI documents no operation ${method.toUpperCase()} ${pathTemplate}`;
  return { op, parts: ['paths', pathTemplate, m] };
}

const JSON_MEDIA = ['application/json', 'application/problem+json'];

/**
 * Validates a REST response body against the OpenAPI response schema of
 * `method pathTemplate` for `status` (following `$ref` into `components.responses`).
 * Returns error strings; an undocumented status is itself an error.
 */
export function validateRestResponse(method: string, pathTemplate: string, status: number, body: unknown): string[] {
  const found = findOperation(method, pathTemplate);
  if (typeof found === 'string') return [found];
  const { op, parts } = found;
  const responses = op.responses as Record<string, Json>;
  const code = String(status);
  const key = [code, `${code[0]}XX`, `${code[0]}xx`, 'default'].find((k) => responses[k] !== undefined);
  if (key === undefined) {
    return [
      `status ${status} is not documented for ${method.toUpperCase()} ${pathTemplate} (documented: ${Object.keys(responses).join(', ')})`,
    ];
  }
  let resp = responses[key];
  let respParts = [...parts, 'responses', key];
  const seen = new Set<string>();
  while (resp && typeof resp.$ref === 'string') {
    if (seen.has(resp.$ref)) return [`circular response $ref ${resp.$ref}`];
    seen.add(resp.$ref);
    respParts = pointerToParts(resp.$ref);
    resp = getLocal(openapiDoc(), resp.$ref);
  }
  const content = resp?.content as Record<string, Json> | undefined;
  const media = content ? JSON_MEDIA.filter((m) => content[m]?.schema !== undefined) : [];
  if (media.length === 0) {
    if (body === undefined || body === null || body === '') return [];
    return [
      `${method.toUpperCase()} ${pathTemplate} ${status} documents no JSON body (content types: ${Object.keys(content ?? {}).join(', ') || 'none'})`,
    ];
  }
  // Prefer problem+json for error statuses when both are documented.
  const chosen = status >= 400 && media.includes('application/problem+json') ? 'application/problem+json' : media[0];
  const uri = OPENAPI_ID + pointer(...respParts, 'content', chosen, 'schema');
  return run(validatorFor(uri), body);
}

/** Media type(s) documented for a response: handy for asserting Content-Type. */
export function restResponseMediaTypes(method: string, pathTemplate: string, status: number): string[] {
  const found = findOperation(method, pathTemplate);
  if (typeof found === 'string') throw new Error(found);
  let resp = found.op.responses[String(status)];
  while (resp && typeof resp.$ref === 'string') resp = getLocal(openapiDoc(), resp.$ref);
  return Object.keys(resp?.content ?? {});
}

/** Every `[METHOD, pathTemplate]` operation in the OpenAPI document. */
export function restOperations(): Array<{ method: string; path: string; statuses: string[] }> {
  const out: Array<{ method: string; path: string; statuses: string[] }> = [];
  for (const [p, item] of Object.entries(openapiDoc().paths ?? {}) as Array<[string, Json]>) {
    for (const [m, op] of Object.entries(item) as Array<[string, Json]>) {
      if (op && typeof op === 'object' && op.responses)
        out.push({ method: m.toUpperCase(), path: p, statuses: Object.keys(op.responses) });
    }
  }
  return out;
}

/**
 * Resolves `$ref`s in a schema into a self-contained deep copy where simple:
 * local refs of the host document, and absolute/relative refs into the official
 * schema files. Recursive refs are left as absolute `$ref` URIs. Sibling keywords
 * of a `$ref` (e.g. `description`) are kept and override the target's.
 */
export function deepResolve(schema: Json, host: { doc: Json; id: string }): Json {
  const byId = new Map<string, Json>();
  for (const s of spec().schemas.values()) byId.set(s.$id, s);
  byId.set(OPENAPI_ID, openapiDoc());
  byId.set(OPENRPC_ID, openrpcDoc());
  byId.set(host.id, host.doc);

  const resolveTarget = (ref: string, base: string): { node: Json; base: string; abs: string } => {
    const abs = new URL(ref, base).href;
    const [docUri, frag = ''] = abs.split('#');
    const doc = byId.get(docUri);
    if (!doc) throw new Error(`cannot resolve ${abs}`);
    const node = frag ? getLocal(doc, `#${frag}`) : doc;
    return { node, base: docUri, abs };
  };

  const walk = (n: Json, base: string, stack: string[]): Json => {
    if (Array.isArray(n)) return n.map((x) => walk(x, base, stack));
    if (!n || typeof n !== 'object') return n;
    let scope = base;
    if (typeof n.$id === 'string') scope = new URL(n.$id, base).href.split('#')[0];
    if (typeof n.$ref === 'string') {
      let target;
      try {
        target = resolveTarget(n.$ref, scope);
      } catch {
        return { ...n }; // external / unknown: leave as is
      }
      const { $ref: _ignored, ...siblings } = n;
      if (stack.includes(target.abs)) return { ...walk(siblings, scope, stack), $ref: target.abs };
      const resolved = walk(target.node, target.base, [...stack, target.abs]);
      if (resolved && typeof resolved === 'object' && !Array.isArray(resolved)) {
        const { $schema: _s, $id: _i, $defs: _d, ...rest } = resolved;
        return { ...rest, ...walk(siblings, scope, stack) };
      }
      return resolved;
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(n)) out[k] = walk(v, scope, stack);
    return out;
  };
  return walk(structuredClone(schema), host.id, []);
}

/**
 * The `application/json` requestBody schema of an operation, deep-resolved
 * (see `deepResolve`). Undefined when the operation takes no JSON body.
 */
export function restRequestSchema(method: string, pathTemplate: string): Json | undefined {
  const found = findOperation(method, pathTemplate);
  if (typeof found === 'string') throw new Error(found);
  let rb = found.op.requestBody;
  while (rb && typeof rb.$ref === 'string') rb = getLocal(openapiDoc(), rb.$ref);
  const schema = rb?.content?.['application/json']?.schema;
  if (schema === undefined) return undefined;
  return deepResolve(schema, { doc: openapiDoc(), id: OPENAPI_ID });
}

// ---------------------------------------------------------------------------
// OpenRPC (MCP binding)
// ---------------------------------------------------------------------------

/** The parsed OpenRPC document (D17 applied). Do not mutate. */
export function openrpcDoc(): Json {
  return spec().openrpc;
}

function methodIndex(name: string): number {
  const i = (openrpcDoc().methods as Json[]).findIndex((m) => m.name === name);
  if (i < 0) throw new Error(`OpenRPC documents no method ${name}`);
  return i;
}

/** The OpenRPC method object for a tool (throws when unknown). */
export function openrpcMethod(name: string): Json {
  return openrpcDoc().methods[methodIndex(name)];
}

export type McpAccess = 'public' | 'privileged_platform' | 'privileged_scoped' | (string & {});

/** Tool name -> its `x-usp-access` tier. */
export function mcpToolAccess(): Record<string, McpAccess | undefined> {
  const out: Record<string, McpAccess | undefined> = {};
  for (const m of openrpcDoc().methods as Json[]) out[m.name] = m['x-usp-access'];
  return out;
}

/** OpenRPC method names (document order), optionally only those with the given `x-usp-access` tier(s). */
export function mcpToolNames(
  accessFilter?: McpAccess | McpAccess[] | ((access: McpAccess | undefined) => boolean),
): string[] {
  const test =
    accessFilter === undefined
      ? () => true
      : typeof accessFilter === 'function'
        ? accessFilter
        : (a: McpAccess | undefined) =>
            (Array.isArray(accessFilter) ? accessFilter : [accessFilter]).includes(a as McpAccess);
  return Object.entries(mcpToolAccess())
    .filter(([, a]) => test(a))
    .map(([n]) => n);
}

/**
 * Validates a tool's `structuredContent` against the method's
 * `result.schema.properties.structuredContent` (or the whole `result.schema`
 * when it does not wrap structuredContent).
 */
export function validateMcpResult(toolName: string, structuredContent: unknown): string[] {
  const i = methodIndex(toolName);
  const result = openrpcDoc().methods[i].result;
  let parts: Array<string | number> = ['methods', i, 'result'];
  let r = result;
  if (r && typeof r.$ref === 'string') {
    parts = pointerToParts(r.$ref);
    r = getLocal(openrpcDoc(), r.$ref);
  }
  if (!r?.schema) return [`OpenRPC method ${toolName} documents no result schema`];
  const wraps = r.schema.properties?.structuredContent !== undefined;
  const uri = OPENRPC_ID + pointer(...parts, 'schema', ...(wraps ? ['properties', 'structuredContent'] : []));
  return run(validatorFor(uri), structuredContent);
}

/** Validates a whole MCP result object (`{ structuredContent, content }`) against `result.schema`. */
export function validateMcpResultEnvelope(toolName: string, result: unknown): string[] {
  const i = methodIndex(toolName);
  return run(validatorFor(OPENRPC_ID + pointer('methods', i, 'result', 'schema')), result);
}

/**
 * Validates an MCP `arguments` object against the method's params, treated as
 * an object schema (one property per param; `required: true` params required).
 * Extra properties are allowed unless `opts.additionalProperties === false`.
 */
export function validateMcpParams(
  toolName: string,
  args: unknown,
  opts: { additionalProperties?: boolean } = {},
): string[] {
  const i = methodIndex(toolName);
  const cacheKey = `${OPENRPC_ID}#params:${toolName}:${opts.additionalProperties === false ? 'closed' : 'open'}`;
  let v = validatorCache.get(cacheKey);
  if (!v) {
    const params = openrpcDoc().methods[i].params as Json[];
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    params.forEach((p, j) => {
      let parts: Array<string | number> = ['methods', i, 'params', j];
      let cd = p;
      if (typeof cd.$ref === 'string') {
        parts = pointerToParts(cd.$ref);
        cd = getLocal(openrpcDoc(), cd.$ref);
      }
      properties[cd.name] = { $ref: OPENRPC_ID + pointer(...parts, 'schema') };
      if (cd.required === true) required.push(cd.name);
    });
    const schema: Json = { type: 'object', properties, required };
    if (opts.additionalProperties === false) schema.additionalProperties = false;
    specAjv(); // ensure the shared instance exists
    try {
      v = cachedAjv!.compile(schema);
    } catch (e) {
      throw new Error(`cannot compile params of ${toolName}: ${(e as Error).message}`);
    }
    validatorCache.set(cacheKey, v);
  }
  return run(v, args);
}

// ---------------------------------------------------------------------------
// Test vectors
// ---------------------------------------------------------------------------

/** `tests/vectors/pop/*.json`, sorted by file name. Empty when the spec is absent. */
export function popVectors(): Array<{ file: string; vector: any }> {
  if (!specDir) return [];
  const dir = path.join(specDir, 'tests', 'vectors', 'pop');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, vector: readJson(path.join(dir, file)) }));
}

/** Reads any JSON file of the official artifacts by path relative to the spec folder. */
export function readSpecJson(relPath: string): Json {
  return readJson(path.join(requireSpecDir(), relPath));
}

/**
 * Check one REST response against the official artifacts: a documented status against its OpenAPI
 * schema; a business outcome (HTTP 200 carrying an error message, which the OpenAPI does not
 * document for creations) message by message, with any booking or waitlist entry against its own
 * definition. Returns false (checking nothing) when the spec folder is absent.
 */
export function conformRestResponse(method: string, path: string, res: { status: number; body: any }): boolean {
  if (!specDir) {
    noteSkipOnce();
    return false;
  }
  const label = `${method} ${path} ${res.status}`;
  const messages: any[] = Array.isArray(res.body?.messages) ? res.body.messages : [];
  if (res.status < 300 && messages.some((m) => m.type === 'error')) {
    for (const m of messages) assertValid(validateSchemaDef('booking.json', 'Message', m), `${label} message`);
    if (res.body.entry)
      assertValid(validateSchemaDef('waitlist.json', 'WaitlistEntry', res.body.entry), `${label} entry`);
    if (res.body.booking)
      assertValid(validateSchemaDef('booking.json', 'Booking', res.body.booking), `${label} booking`);
  } else {
    assertValid(validateRestResponse(method, path, res.status, res.body), label);
  }
  return true;
}
