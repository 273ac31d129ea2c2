/**
 * The command line runs with the server's V8 heap growing factor (src/server/heap.ts; issue 40, peak
 * RSS): set from inside the process, it must reach the collector. V8 prints the factor it used for
 * each new old-generation limit under `--trace-gc-verbose` ("[HeapController] Limit: old size: …,
 * new limit: … (1.5)" on Node 20, "[HeapController] factor 1.5 based on …" on Node 24); on V8's
 * default the factor is its own (4.0 on a large machine). `validate`
 * runs two or more full collections while it loads the server's modules. An operator's own factor
 * (node's flag, or USP_HEAP_GROWING_PERCENT where node's flags cannot be given) wins.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneHeap } from '../../src/server/heap.js';
import { ensureBuilt } from '../support/build.js';
import { BIN, REPO_ROOT } from '../support/cli.js';

/** The growing factors V8 used for the old generation's limits while `usp-server validate` ran. */
function factorsUsed(nodeFlags: string[], env: Record<string, string> = {}): Promise<string[]> {
  ensureBuilt();
  const demo = join(REPO_ROOT, 'src/server/demo-business.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, '--trace-gc-verbose', BIN, 'validate', demo], {
      cwd: REPO_ROOT,
      env: { ...process.env, USP_HEAP_GROWING_PERCENT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`validate exited ${code}`));
      // Node 20 (V8 11) writes the factor used at the end of each limit's line, and its "factor"
      // line before a flag's override; Node 22 and later write the factor used on the "factor" line only.
      const limits = [...out.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)$/gm)].map((m) => m[1]!);
      const factors = [...out.matchAll(/\[HeapController\] factor (\d+\.\d) based on/g)].map((m) => m[1]!);
      resolve(limits.length > 0 ? limits : factors);
    });
  });
}

describe('V8 heap growing factor', () => {
  it('the command line sets every old-generation limit at 1.5× what a full collection left', async () => {
    expect(HEAP_GROWING_PERCENT).toBe(50);
    const factors = await factorsUsed([]);
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['1.5']));
  }, 60_000);

  it("an operator's own --heap-growing-percent on node's command line wins", async () => {
    const factors = await factorsUsed(['--heap-growing-percent=30']);
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['1.3']));
    expect(tuneHeap(['--heap-growing-percent=30'], { USP_HEAP_GROWING_PERCENT: '70' })).toBe(30);
    expect(tuneHeap(['--heap_growing_percent=80'])).toBe(80);
    expect(tuneHeap(['--heap-growing-percent=0'])).toBeUndefined();
  }, 60_000);

  it('USP_HEAP_GROWING_PERCENT sets another factor, and 0 leaves V8 its own', async () => {
    expect(new Set(await factorsUsed([], { USP_HEAP_GROWING_PERCENT: '30' }))).toEqual(new Set(['1.3']));
    const own = await factorsUsed([], { USP_HEAP_GROWING_PERCENT: '0' });
    expect(own.length).toBeGreaterThan(0);
    expect(own).not.toContain('1.5');
  }, 60_000);
});
