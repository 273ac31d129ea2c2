import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The suite in six projects, each file in exactly one (test/architecture/projects.test.ts checks it):
 *   processes   files that start a process (the CLI, `serve`, `mcp` over stdio, a second server on one
 *               database): they mostly wait on children and timers; the shifted-clock runs take these
 *   browser     *.browser.test.ts (Chromium through playwright-core)
 *   postgres    the PostgreSQL suites that start no process (skipped without USP_TEST_PG_URL)
 *   doors       the REST and MCP doors, pages, mail, payments, webhooks, calendars, registry, in process
 *   unit        the domain, the stores, the architecture rules, the harness
 *   isolated    the files of those two that mock, stub or spy (CHANGES_WHAT_IS_SHARED below): the other
 *               two share each worker's modules between files, these do not
 * `npx vitest run --project unit` runs one. Files run in three workers even on 2 cores (vitest's
 * default there is one): most files wait on sockets, children and timers far more than they compute.
 * USP_TEST_WORKERS=N (or --maxWorkers=N) sets another count.
 */
const PROCESS_MARKERS =
  /runCli|startServeCli|startRegistryCli|spawn\(|fork\(|StdioClientTransport|stdio|support\/cli\.js|registry\/processes\.js/;

function testFiles(dir = 'test'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

const all = testFiles().sort();
const isBrowser = (f: string) => f.endsWith('.browser.test.ts');
const isProcess = (f: string) => !isBrowser(f) && PROCESS_MARKERS.test(readFileSync(f, 'utf8'));
const isPostgres = (f: string) =>
  !isBrowser(f) &&
  !isProcess(f) &&
  (f.startsWith('test/pg/') || f === 'test/store/postgres.test.ts' || /USP_TEST_PG_URL/.test(readFileSync(f, 'utf8')));
const UNIT_DIRS = ['test/domain/', 'test/store/', 'test/architecture/', 'test/harness/', 'test/outbox/'];
const isUnit = (f: string) =>
  !isBrowser(f) && !isProcess(f) && !isPostgres(f) && UNIT_DIRS.some((d) => f.startsWith(d));

/**
 * In-process files that change what the files sharing a worker would see: a module mocked, a global
 * stubbed, fake timers, a function spied on (several count calls that a warm cache would not make),
 * the environment written. They run in the `isolated` project, each with a module registry of its
 * own; every other in-process file shares its worker's registry (isolate: false), so the server's
 * modules are imported once per worker rather than once per file. Importing them per file was about
 * half the in-process projects' time: `doors` alone spent 1,947 s importing and 2,153 s testing
 * (summed over files, 206 files, load 10-20); `doors` and `unit` together without isolation, 81 s
 * importing and 876 s testing (335 s wall against about 1,500).
 */
const CHANGES_WHAT_IS_SHARED =
  /vi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers|spyOn)\(|process\.env\.\w+ = |process\.env\[[^\]]+\] = |delete process\.env/;
const isShared = (f: string) => !CHANGES_WHAT_IS_SHARED.test(readFileSync(f, 'utf8'));
const isDoors = (f: string) => !isBrowser(f) && !isProcess(f) && !isPostgres(f) && !isUnit(f);

export const PROJECT_FILES: Record<string, string[]> = {
  processes: all.filter(isProcess),
  browser: all.filter(isBrowser),
  postgres: all.filter(isPostgres),
  unit: all.filter((f) => isUnit(f) && isShared(f)),
  doors: all.filter((f) => isDoors(f) && isShared(f)),
  isolated: all.filter((f) => (isUnit(f) || isDoors(f)) && !isShared(f)),
};

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: Number(process.env.USP_TEST_WORKERS) || Math.max(3, availableParallelism() - 1),
    // A HOME and XDG_DATA_HOME of the run's own; fails the run if anything appears in the user's.
    globalSetup: ['test/support/global-home.ts'],
    projects: [
      // Process tests start children that load the whole server: on a loaded machine a start takes
      // seconds, so these have more time per test and per hook than in-process tests.
      {
        extends: true,
        test: { name: 'processes', include: PROJECT_FILES.processes, testTimeout: 40_000, hookTimeout: 40_000 },
      },
      { extends: true, test: { name: 'browser', include: PROJECT_FILES.browser } },
      { extends: true, test: { name: 'postgres', include: PROJECT_FILES.postgres } },
      { extends: true, test: { name: 'doors', include: PROJECT_FILES.doors, isolate: false } },
      { extends: true, test: { name: 'unit', include: PROJECT_FILES.unit, isolate: false } },
      { extends: true, test: { name: 'isolated', include: PROJECT_FILES.isolated } },
    ],
  },
});
