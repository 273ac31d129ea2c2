/**
 * vitest's global setup: every test process (and every child it starts, which inherits the
 * environment) gets a HOME and an XDG_DATA_HOME of its own in a temporary folder, so that nothing a
 * test runs (`serve` with its default database and mail folder, npm, Chromium) writes into the
 * user's own. At the end the user's data folder for usp-server is compared with what it held at the
 * start: anything new there fails the run, naming it (a fresh clone's `npm test` once left 141 `.eml`
 * files in `~/.local/share/usp-server`).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Every path below `dir` with its modification time, to see what a run added or changed. */
function listing(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.set(p, statSync(p).mtimeMs);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

export default function setup(): () => void {
  const realHome = process.env.HOME && isAbsolute(process.env.HOME) ? process.env.HOME : homedir();
  const realXdg =
    process.env.XDG_DATA_HOME && isAbsolute(process.env.XDG_DATA_HOME)
      ? process.env.XDG_DATA_HOME
      : join(realHome, '.local', 'share');
  const watched = join(realXdg, 'usp-server');
  const before = listing(watched);
  const root = mkdtempSync(join(tmpdir(), 'usp-test-home-'));
  const home = join(root, 'home');
  const data = join(root, 'data');
  mkdirSync(home);
  mkdirSync(data);
  // npm (the conformance test installs Node 22 with it) keeps its cache under HOME: keep using the
  // user's, so a run does not download again what the machine already has.
  if (!process.env.npm_config_cache) process.env.npm_config_cache = join(realHome, '.npm');
  process.env.HOME = home;
  process.env.XDG_DATA_HOME = data;
  return () => {
    rmSync(root, { recursive: true, force: true });
    const after = listing(watched);
    const added = [...after].filter(([p, t]) => before.get(p) !== t).map(([p]) => p);
    if (added.length > 0) {
      // vitest reports an error thrown here but still exits 0: set the exit status as well.
      process.exitCode = 1;
      throw new Error(
        `the tests wrote into the user's data folder ${watched}: ${added.slice(0, 10).join(', ')}${added.length > 10 ? ` and ${added.length - 10} more` : ''}`,
      );
    }
  };
}
