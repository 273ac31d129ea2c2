/**
 * The built server for tests that spawn `bin/usp-server.js` (which runs `dist/`): rebuild `dist/`
 * when any file under src/ is newer than it. Test files run in parallel, so one builds under a lock
 * directory while the others wait. A failed build fails the calling test loudly and leaves a marker
 * in dist/, so no test runs against a stale or half-written dist/ (tsc emits even when it reports
 * errors, which would otherwise look fresh).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO_ROOT, 'bin/usp-server.js');

/** Where a build happens and how; the defaults are this repository and `npm run build`. */
export interface BuildTarget {
  root: string;
  /** Runs the build; throws (with stdout/stderr on the error, as execFileSync does) when it fails. */
  build(): void;
  /** The lock directory shared by parallel test files. */
  lock: string;
  /** How long to wait for another file's build. */
  timeoutMs?: number;
}

const FAILED_MARKER = 'dist/.build-failed';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function distIsFresh(root: string): boolean {
  const cli = join(root, 'dist/server/cli.js');
  if (existsSync(join(root, FAILED_MARKER))) return false;
  if (!existsSync(cli) || !existsSync(join(root, 'dist/server/demo-business.json'))) return false;
  const built = statSync(cli).mtimeMs;
  // The MCP Apps views (views/ -> dist/views/) are built after the server: present and newer than their sources.
  const views = join(root, 'views');
  if (
    existsSync(views) &&
    (!existsSync(join(root, 'dist/views')) || newestMtime(join(root, 'dist/views')) < newestMtime(views))
  )
    return false;
  return built >= newestMtime(join(root, 'src'));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const REPO_BUILD: BuildTarget = {
  root: REPO_ROOT,
  build: () => execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'pipe' }),
  lock: join(tmpdir(), 'usp-server-mcp-tests-build.lock'),
};

/** Make `dist/` match `src/`, or throw with the build's output. */
export function ensureBuilt(target: BuildTarget = REPO_BUILD): void {
  const { root, lock } = target;
  const timeoutMs = target.timeoutMs ?? 120_000;
  if (distIsFresh(root)) return;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > timeoutMs) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      sleepSync(200);
      if (distIsFresh(root)) return;
    }
  }
  try {
    if (distIsFresh(root)) return;
    try {
      target.build();
    } catch (err) {
      mkdirSync(join(root, 'dist'), { recursive: true });
      writeFileSync(join(root, FAILED_MARKER), new Date().toISOString());
      const e = err as { stdout?: unknown; stderr?: unknown; message?: unknown };
      const output = `${String(e.stdout ?? '')}${String(e.stderr ?? '')}`.trim() || String(e.message ?? err);
      throw new Error(`the build of ${root} failed, so tests that run dist/ cannot run:\n${output.slice(0, 3000)}`);
    }
    rmSync(join(root, FAILED_MARKER), { force: true });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
