/**
 * The tests that spawn bin/usp-server.js run dist/: when src/ changed and the build fails, they must
 * fail with the build's output rather than pass against the old dist/.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ensureBuilt, type BuildTarget } from '../support/build.js';

let root: string;

/** A repository whose dist/ was built at t=1000 s and whose src/ changed at t=2000 s. */
function staleRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'usp-ensure-built-'));
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'dist/server'), { recursive: true });
  for (const f of ['dist/server/cli.js', 'dist/server/demo-business.json']) {
    writeFileSync(join(dir, f), 'old');
    utimesSync(join(dir, f), 1000, 1000);
  }
  writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1;');
  utimesSync(join(dir, 'src/a.ts'), 2000, 2000);
  return dir;
}

function target(build: () => void): BuildTarget {
  return { root, build, lock: join(root, 'build.lock'), timeoutMs: 5000 };
}

/** What tsc does on a type error: it writes dist/ anyway, then exits non-zero. */
const failingBuild = () => {
  writeFileSync(join(root, 'dist/server/cli.js'), 'half-new');
  throw Object.assign(new Error('Command failed: npm run build'), {
    stdout: '',
    stderr: "src/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'.",
  });
};

beforeEach(() => {
  root = staleRepo();
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('ensureBuilt fails loudly when the build fails and never falls back to a stale dist/', () => {
  test('a failed build throws with the compiler output although an older dist/ exists', () => {
    expect(() => ensureBuilt(target(failingBuild))).toThrow(/build of .* failed[\s\S]*error TS2322/);
  });

  test('after a failed build, the next call builds again (and fails again) instead of trusting the dist/ tsc wrote', () => {
    let builds = 0;
    const counting = () => {
      builds++;
      failingBuild();
    };
    expect(() => ensureBuilt(target(counting))).toThrow(/failed/);
    expect(() => ensureBuilt(target(counting))).toThrow(/failed/);
    expect(builds).toBe(2);
  });

  test('a successful build clears the failure, and a fresh dist/ is not rebuilt', () => {
    expect(() => ensureBuilt(target(failingBuild))).toThrow();
    let builds = 0;
    const ok = () => {
      builds++;
      writeFileSync(join(root, 'dist/server/cli.js'), 'new');
    };
    ensureBuilt(target(ok));
    ensureBuilt(target(ok));
    expect(builds).toBe(1);
    expect(existsSync(join(root, 'dist/.build-failed'))).toBe(false);
    expect(existsSync(join(root, 'build.lock'))).toBe(false);
  });
});
