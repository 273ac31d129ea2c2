/**
 * The run's own HOME (test/support/global-home.ts): a test, and every child it starts, writes its
 * default data folder (databases, the mail folder) under a temporary folder, never the user's.
 */
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { dataDir } from '../../src/server/cli/common.js';

const underTmp = (p: string) => realpathSync(p).startsWith(realpathSync(tmpdir()));

describe('the test run has a home of its own', () => {
  test('HOME, XDG_DATA_HOME and the default data folder are under the temporary folder', () => {
    expect(underTmp(homedir())).toBe(true);
    expect(underTmp(process.env.XDG_DATA_HOME ?? '/')).toBe(true);
    expect(dataDir().startsWith(process.env.XDG_DATA_HOME ?? '/nowhere')).toBe(true);
  });

  test('a child process started by a test inherits it', async () => {
    const child = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['-e', 'process.stdout.write(require("node:os").homedir() + "\\n" + process.env.XDG_DATA_HOME)'],
        (err, out) => (err ? reject(err) : resolve(out)),
      );
    });
    const [home, data] = child.split('\n');
    expect(underTmp(home)).toBe(true);
    expect(data).toBe(process.env.XDG_DATA_HOME);
  });
});
