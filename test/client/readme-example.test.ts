/**
 * The README's "Build a platform" example is run as written: its code block is taken out of
 * README.md, pointed at the built library (the one change: `usp-server/client` becomes the path of
 * dist/client/index.js, as a project depending on the package resolves it), and run with node
 * against `usp-server serve --demo --allow-loopback-profiles` in its own process. It must discover, book, and receive the
 * booking's webhook verified.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { REPO_ROOT, startServeCli, type RunningCli } from '../support/cli.js';

/** The first ```js block under the "## Build a platform" heading. */
function platformExample(readme: string): string {
  const at = readme.indexOf('\n## Build a platform\n');
  if (at < 0) throw new Error('README has no "## Build a platform" section');
  const next = readme.indexOf('\n## ', at + 1);
  const section = readme.slice(at, next < 0 ? undefined : next);
  const m = /```js\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('the "Build a platform" section has no js code block');
  return m[1]!;
}

let cli: RunningCli;
beforeAll(async () => {
  ensureBuilt();
  cli = await startServeCli(['--demo', '--allow-loopback-profiles', '--db', ':memory:', '--port', '0']);
}, 120_000);
afterAll(async () => {
  await cli?.stop();
});

describe('the README example of a platform runs as written', () => {
  it('discovers the demo business, books a haircut and receives its confirmed webhook', async () => {
    const code = platformExample(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(code).toContain("from 'usp-server/client'");
    const dir = mkdtempSync(join(tmpdir(), 'usp-readme-platform-'));
    const file = join(dir, 'platform.mjs');
    writeFileSync(
      file,
      code.replace("'usp-server/client'", `'${pathToFileURL(join(REPO_ROOT, 'dist/client/index.js')).href}'`),
    );
    const { stdout } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        process.execPath,
        [file],
        { cwd: dir, env: { ...process.env, USP_BUSINESS: cli.url }, timeout: 30_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve({ stdout, stderr }),
      ),
    );
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('Maple & Pine Salon and Studio, over rest');
    const booked = /^booked (\S+): confirmed$/.exec(lines[1] ?? '');
    expect(booked, stdout).not.toBeNull();
    expect(lines[2]).toBe(`webhook booking.confirmed for ${booked![1]}`);
  }, 60_000);
});
