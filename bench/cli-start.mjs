/**
 * Benchmark 12: the command line's start. `usp-server --help` from process start to exit, against
 * the floor of a bare `node -e 0` on the same machine, in interleaved rounds (so load hits both
 * alike). The global help loads none of the server (each command's module is imported when that
 * command runs: src/server/cli/commands.ts); `validate` of the demo file is shown beside it, a command that
 * does load the business code. Target: `--help` under 300 ms (issue 38: every CLI start used to
 * load every adapter, 1.8 to 4.5 s on a loaded machine).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, fmtMs, fmtX, msSince, now, summarize } from './lib.mjs';

const TARGET_MS = 300;

/** Wall time of one child process, from spawn to exit; throws if it fails. */
function timed(args) {
  const t0 = now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env: process.env, encoding: 'utf8' });
  const ms = msSince(t0);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  return ms;
}

export async function run({ quick }) {
  const bin = join(ROOT, 'bin/usp-server.js');
  const rounds = quick ? 3 : 15;
  const bare = [];
  const help = [];
  const validate = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(timed(['-e', '0']));
    help.push(timed([bin, '--help']));
    validate.push(timed([bin, 'validate', join(ROOT, 'src/server/demo-business.json')]));
  }
  const b = summarize(bare);
  const h = summarize(help);
  const v = summarize(validate);
  return {
    id: 'cli',
    title: '12. Command line start (wall time, process start to exit)',
    sections: [
      {
        caption: `${rounds} interleaved rounds`,
        header: ['command', 'p50', 'max', '÷ bare node'],
        rows: [
          ['node -e 0 (floor)', fmtMs(b.p50), fmtMs(b.max), fmtX(1)],
          ['usp-server --help', fmtMs(h.p50), fmtMs(h.max), fmtX(h.p50 / b.p50)],
          ['usp-server validate demo-business.json', fmtMs(v.p50), fmtMs(v.max), fmtX(v.p50 / b.p50)],
        ],
      },
    ],
    notes: [
      '`--help` reads the command table (names and summaries) and the flag table only; `validate` imports its command and the business-file code, as every command that runs does.',
    ],
    targets: [
      {
        name: '`usp-server --help` (wall time)',
        target: `p50 < ${TARGET_MS} ms`,
        value: `${fmtMs(h.p50)} (${fmtX(h.p50 / b.p50)} bare node)`,
        ok: h.p50 < TARGET_MS,
      },
    ],
  };
}
