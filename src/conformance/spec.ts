/**
 * The official USP artifacts (JSON Schemas, OpenAPI, OpenRPC, proof vectors), read at run time
 * from a folder: never copied into this package. Answers are validated against exactly what the
 * protocol repository publishes; when the folder is absent, schema checks are skipped with a note.
 *
 * One change is made on load, and said: the reverse-domain key pattern of `schemas/usp.json`
 * admits no hyphen, so the spec's own `dev.usp-protocol.*` keys would fail it; exactly that pattern
 * is widened to admit `-`, and the note says so (docs/DECISIONS.md: the widened key patterns).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);

const KEY_PATTERN = '^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$';
const WIDENED_KEY_PATTERN = '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$';
const OPENAPI_ID = 'urn:usp-conformance:openapi';
const OPENRPC_ID = 'urn:usp-conformance:openrpc';

export interface SpecArtifacts {
  dir: string;
  notes: string[];
  openapi: any;
  openrpc: any;
  /** The `data.code` enum of the OpenRPC protocol error. */
  errorCodes: ReadonlySet<string>;
  /** The proof vectors (tests/vectors/pop), by file name. */
  popVectors: Array<{ name: string; vector: any }>;
  /** Errors of `value` against the schema at `ref` (an absolute `$id` URL with pointer), or null when valid. */
  validate(ref: string, value: unknown): string | null;
  /** The OpenAPI answer schema of a route for a status, as a validator; null when the document declares none. */
  restAnswer(path: string, method: string, status: number): ((value: unknown) => string | null) | null;
  /** The OpenRPC result schema of a method; null when the method is unknown. */
  mcpResult(method: string): ((value: unknown) => string | null) | null;
}

function looksLikeSpec(dir: string): boolean {
  try {
    return statSync(join(dir, 'schemas')).isDirectory() && existsSync(join(dir, 'openapi', 'usp-rest.json'));
  } catch {
    return false;
  }
}

/** The folder to read: `--spec`, else ../shared/usp-spec from the working directory, else from this package. */
export function locateSpec(given: string | undefined, cwd = process.cwd()): { dir: string | null; looked: string[] } {
  if (given)
    return { dir: looksLikeSpec(resolve(cwd, given)) ? resolve(cwd, given) : null, looked: [resolve(cwd, given)] };
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(cwd, '../shared/usp-spec'), resolve(here, '../../../shared/usp-spec')];
  return { dir: candidates.find(looksLikeSpec) ?? null, looked: candidates };
}

function widen(node: unknown, count: { n: number }): unknown {
  if (Array.isArray(node)) return node.map((n) => widen(n, count));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'pattern' && v === KEY_PATTERN) {
        count.n++;
        out[k] = WIDENED_KEY_PATTERN;
      } else out[k] = widen(v, count);
    }
    return out;
  }
  return node;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function formatErrors(v: ValidateFunction): string {
  return (v.errors ?? [])
    .slice(0, 3)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    )
    .join('; ');
}

export function loadSpec(dir: string): SpecArtifacts {
  const notes: string[] = [];
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  const count = { n: 0 };
  for (const f of readdirSync(join(dir, 'schemas')).filter((f) => f.endsWith('.json'))) {
    ajv.addSchema(widen(JSON.parse(readFileSync(join(dir, 'schemas', f), 'utf8')), count) as object);
  }
  const openapi = widen(JSON.parse(readFileSync(join(dir, 'openapi', 'usp-rest.json'), 'utf8')), count) as any;
  const openrpc = widen(JSON.parse(readFileSync(join(dir, 'openrpc', 'usp-mcp.json'), 'utf8')), count) as any;
  ajv.addSchema({ ...openapi, $id: OPENAPI_ID });
  ajv.addSchema({ ...openrpc, $id: OPENRPC_ID });
  if (count.n > 0)
    notes.push(
      `the official key pattern ${KEY_PATTERN} was widened to admit "-" in ${count.n} places (the spec's own dev.usp-protocol.* keys fail it)`,
    );

  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (ref: string) => {
    let v = compiled.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: ref });
      compiled.set(ref, v);
    }
    return (value: unknown) => (v!(value) ? null : formatErrors(v!));
  };

  const errorEnum: string[] = openrpc.components?.errors?.USPProtocolError?.data?.properties?.code?.enum ?? [];
  const vectorsDir = join(dir, 'tests', 'vectors', 'pop');
  const popVectors = existsSync(vectorsDir)
    ? readdirSync(vectorsDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((name) => ({ name, vector: JSON.parse(readFileSync(join(vectorsDir, name), 'utf8')) }))
    : [];

  return {
    dir,
    notes,
    openapi,
    openrpc,
    errorCodes: new Set(errorEnum),
    popVectors,
    validate: (ref, value) => validatorFor(ref)(value),
    restAnswer(path, method, status) {
      const op = openapi.paths?.[path]?.[method.toLowerCase()];
      if (!op) return null;
      let key = String(status);
      let response = op.responses?.[key];
      if (!response) return null;
      while (response.$ref) {
        key = response.$ref;
        response = response.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((o: any, p: string) => o?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], openapi);
      }
      const content = response?.content ?? {};
      const type = Object.keys(content).find((t) => t.includes('json'));
      if (!type || !content[type].schema) return null;
      const ref = key.startsWith('#/')
        ? `${OPENAPI_ID}${key}/content/${pointer(type)}/schema`
        : `${OPENAPI_ID}#/${pointer('paths', path, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema')}`;
      return validatorFor(ref);
    },
    mcpResult(method) {
      const i = (openrpc.methods as any[]).findIndex((m) => m.name === method);
      if (i < 0) return null;
      return validatorFor(`${OPENRPC_ID}#/methods/${i}/result/schema`);
    },
  };
}
