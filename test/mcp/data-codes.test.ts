/**
 * Every `data.code` the source can send is in the pinned OpenRPC error enum or in our documented
 * extension list (src/bindings/mcp/data-codes.ts), and every listed extension is sent somewhere and
 * documented in docs/CONFORMANCE.md and docs/DECISIONS.md. "Can send" is read from the source: the
 * finer codes given to protocol errors and authentication failures, each protocol error code thrown
 * without a finer one, the security failures' codes and the MCP door's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, beforeAll } from 'vitest';
import { DATA_CODE_EXTENSIONS } from '../../src/bindings/mcp/data-codes.js';
import type { PROTOCOL_ERROR_CODES } from '../../src/operations/core/errors.js';
import { JSON_RPC, toJsonRpcError } from '../../src/bindings/mcp/errors.js';
import { ProtocolError } from '../../src/operations/index.js';
import { describeConformance, openrpcDoc } from '../support/spec.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Literal codes in the source that reach `data.code`, each with a file that sends it. */
function emittedCodes(): Map<string, string> {
  const out = new Map<string, string>();
  const patterns = [
    /detailCode:\s*'([a-z_]+)'/g,
    // An unknown id in a path: the not-found problem named by its message's code (spec-next 9.4.3).
    /new MissingResource\(\s*errorMessage\(\s*'([a-z_]+)'/g,
    /\b(?:fail|authFailure)\(\s*'[a-z_]+',\s*'([a-z_]+)'/g,
    // A trailing comma and a line break before the parenthesis where the formatter wrapped the call.
    /invalidRequest\([^;]*?\],\s*'([a-z_]+)',?\s*\)/gs,
    /override readonly code = '([a-z_]+)'/g,
    /PopFailure\(\s*'([a-z_]+)'/g,
    // The MCP door's own error objects (the JSON-RPC names wire-fix gives the SDK's errors are JSON_RPC's keys, below).
    /\bcode:\s*'([a-z_]+)'/g,
    /\]:\s*'([a-z_]+)'/g,
    /jsonError\([^;]*?'([a-z_]+)',?\s*\)/g,
  ];
  for (const name of Object.keys(JSON_RPC)) out.set(name, 'src/bindings/mcp/errors.ts');
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(root, file);
    const door = rel.startsWith('src/bindings/mcp/');
    patterns.forEach((re, i) => {
      if (i >= 5 && !door) return;
      for (const m of text.matchAll(re)) if (!out.has(m[1])) out.set(m[1], rel);
    });
    // A protocol error thrown without a finer code sends its own code (through the door's table).
    for (const m of text.matchAll(/new ProtocolError\(\s*'([a-z_]+)'/g)) {
      const rest = text.slice(m.index, text.indexOf(');\n', m.index));
      if (!rest.includes('detailCode')) {
        const wire = toJsonRpcError(new ProtocolError(m[1] as (typeof PROTOCOL_ERROR_CODES)[number], 'x')).data.code as
          | string
          | undefined;
        // An unknown tool sends no data.code at all (spec-next 9.2.1).
        if (wire !== undefined && !out.has(wire)) out.set(wire, rel);
      }
    }
  }
  return out;
}

/** Words of the MCP door that match the patterns above but are not error codes. */
const NOT_CODES = new Set([
  'text',
  'resource',
  'object',
  'string',
  'array',
  'boolean',
  'integer',
  'number',
  'error',
  'warning',
  'info',
]);

describeConformance('data.code: the official enum, or a documented extension', () => {
  // Read when a test runs, not when the block is collected: without the spec the block is skipped but still collected.
  let official = new Set<string>();
  beforeAll(() => {
    official = new Set<string>(openrpcDoc().components.errors.USPProtocolError.data.properties.code.enum);
  });
  const extensions = new Set(Object.keys(DATA_CODE_EXTENSIONS));

  it('every code the source can send is in the pinned enum or in the extension list', () => {
    const outside = [...emittedCodes()]
      .filter(([c]) => !official.has(c) && !extensions.has(c) && !NOT_CODES.has(c))
      .map(([c, f]) => `${c} (${f})`);
    expect(outside).toEqual([]);
  });

  it('every extension is sent somewhere and none is an enum code (the list holds only what is needed)', () => {
    const emitted = emittedCodes();
    expect([...extensions].filter((c) => !emitted.has(c))).toEqual([]);
    expect([...extensions].filter((c) => official.has(c))).toEqual([]);
  });

  it('the extensions the list says the newer enum has are in it', () => {
    const next = path.resolve(root, process.env.USP_SPEC_NEXT_DIR ?? '../shared/usp-spec-next', 'openrpc/usp-mcp.json');
    if (!fs.existsSync(next)) return;
    const nextEnum = new Set<string>(
      JSON.parse(fs.readFileSync(next, 'utf8')).components.errors.USPProtocolError.data.properties.code.enum,
    );
    const said = Object.entries(DATA_CODE_EXTENSIONS)
      .filter(([, where]) => where === 'newer_enum')
      .map(([c]) => c);
    expect(said.filter((c) => !nextEnum.has(c))).toEqual([]);
  });

  it('docs/CONFORMANCE.md and docs/DECISIONS.md name every extension', () => {
    for (const doc of ['docs/CONFORMANCE.md', 'docs/DECISIONS.md']) {
      const text = fs.readFileSync(path.join(root, doc), 'utf8');
      expect(
        [...extensions].filter((c) => !text.includes(`\`${c}\``)),
        doc,
      ).toEqual([]);
    }
  });
});
