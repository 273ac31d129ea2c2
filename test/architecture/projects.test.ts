/**
 * The suite's projects (vitest.config.ts): every test file belongs to exactly one, so that running
 * the projects one by one (CI's shifted-clock and Node 24 passes take some of them) runs every file,
 * and the process tests, which get longer timeouts, are the ones that start processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PROJECT_FILES } from '../../vitest.config.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

test('every test file is in exactly one project', () => {
  const owners = new Map<string, string[]>();
  for (const [project, files] of Object.entries(PROJECT_FILES))
    for (const f of files) owners.set(f, [...(owners.get(f) ?? []), project]);
  const files = testFiles('test').sort();
  expect(
    files.filter((f) => owners.get(f)?.length !== 1).map((f) => `${f}: ${owners.get(f)?.join(', ') ?? 'none'}`),
  ).toEqual([]);
  expect([...owners.keys()].sort()).toEqual(files);
});

// Written in pieces so that this file does not match it (it starts no process).
const STARTS_A_SERVER = new RegExp(
  ['\\bspawn\\(', 'start' + 'ServeCli', 'run' + 'Cli', 'Stdio' + 'ClientTransport'].join('|'),
);

test('a file that starts the server as a child process is in the processes project', () => {
  const spawning = testFiles('test').filter(
    (f) => !f.endsWith('.browser.test.ts') && STARTS_A_SERVER.test(readFileSync(f, 'utf8')),
  );
  expect(spawning.filter((f) => !PROJECT_FILES.processes.includes(f))).toEqual([]);
});
