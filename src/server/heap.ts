/**
 * How far V8 lets the old generation grow past what a full collection left alive, for a server
 * process (docs/DECISIONS.md, "V8 heap growing factor"). By default V8 picks the factor from the
 * GC's speed against the program's allocation rate, up to 4× once the heap may grow to 2 GB
 * (the 24 GB bench machine's limit is 4 GB): a server with 25–35 MB alive then let 100–140 MB of
 * dead request objects pile up between full collections, and its RSS at 64 connections peaked at
 * 159–246 MB. A fixed 1.5× kept it at 143–158 MB for 2–5% more main-thread CPU in full collections
 * (docs/BENCHMARKS.md, "V8 heap growing"; the whole cost is still to be measured on a quiet machine).
 *
 * Set from inside the process (`v8.setFlagsFromString`) before the server's modules load, so every
 * way the command starts gets it (`npx usp-server`, `npm start`, `node bin/usp-server.js`); V8
 * reads the flag each time it sets the next limit (after every full collection), so it takes effect
 * from the first one. An operator's own choice wins (tuneHeap).
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to 1.5× what the last full collection left alive (plus the young generation). */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Apply the server's heap growing factor. Node's own `--heap-growing-percent` wins (NODE_OPTIONS
 * refuses that flag, so `USP_HEAP_GROWING_PERCENT` is the way for `npx usp-server`): a whole number,
 * 0 for V8's own choice. Returns the percent in effect, undefined for V8's own choice.
 */
export function tuneHeap(
  execArgv: readonly string[] = process.execArgv,
  env: Record<string, string | undefined> = process.env,
): number | undefined {
  const own = execArgv.find((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
  if (own !== undefined) return Number(own.split('=')[1]) || undefined;
  const asked = env.USP_HEAP_GROWING_PERCENT?.trim();
  const percent = asked && /^\d+$/.test(asked) ? Number(asked) : HEAP_GROWING_PERCENT;
  if (percent === 0) return undefined;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
