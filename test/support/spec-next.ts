/**
 * The newer upstream text of the protocol (../shared/usp-spec-next, or `$USP_SPEC_NEXT_DIR`): read,
 * never copied, for the tests of what we adopt from it beside the version we conform to (its four
 * feed-subscription MCP methods, its proof vector 011, its flow vectors). `describeSpecNext` skips
 * visibly when the folder is not there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

type Json = any;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.resolve(repoRoot, process.env.USP_SPEC_NEXT_DIR ?? '../shared/usp-spec-next');

/** The folder of the newer text, or null when it is absent. */
export const specNextDir: string | null = fs.existsSync(path.join(dir, 'openrpc', 'usp-mcp.json')) ? dir : null;

/** `describe` when the newer text is there; else a skip whose title says why. */
export function describeSpecNext(name: string, fn: () => void): void {
  if (specNextDir) describe(name, fn);
  else describe.skip(`${name} (skipped: the newer protocol text is not at ${dir})`, fn);
}

/** A JSON file of the newer text, by its path inside the folder. */
export function readSpecNextJson(rel: string): Json {
  if (!specNextDir) throw new Error(`the newer protocol text is not at ${dir}`);
  return JSON.parse(fs.readFileSync(path.join(specNextDir, rel), 'utf8'));
}

/** The newer OpenRPC document's method of that name (throws when it has none). */
export function nextOpenrpcMethod(name: string): Json {
  const m = (readSpecNextJson('openrpc/usp-mcp.json').methods as Json[]).find((x) => x.name === name);
  if (!m) throw new Error(`the newer OpenRPC document has no method ${name}`);
  return m;
}

/** A vector of the newer text's tests/vectors (e.g. `pop/011-crv-substitution`). */
export function specNextVector(id: string): Json {
  return readSpecNextJson(`tests/vectors/${id}.json`);
}
