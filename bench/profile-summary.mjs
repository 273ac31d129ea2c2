/**
 * Summarize a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time and
 * the files (or packages) they live in.
 *
 *   node bench/profile-summary.mjs path/to/file.cpuprofile [topN]
 */
import { readFileSync } from 'node:fs';

export function summarizeProfile(path, top = 25) {
  const prof = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const d = dt[i] ?? 0;
    total += d;
    self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + d);
  }
  const fnTime = new Map();
  const fileTime = new Map();
  for (const [id, t] of self) {
    const n = byId.get(id);
    const cf = n.callFrame;
    const url = cf.url
      .replace(/^file:\/\//, '')
      .replace(/.*\/node_modules\//, 'npm:')
      .replace(/.*\/work\/main\//, '');
    const file = url.startsWith('npm:')
      ? url
          .split('/')
          .slice(0, url.startsWith('npm:@') ? 2 : 1)
          .join('/')
      : url || `(${cf.functionName || 'native'})`;
    const key = `${cf.functionName || '(anonymous)'}  ${url}:${cf.lineNumber + 1}`;
    fnTime.set(key, (fnTime.get(key) ?? 0) + t);
    fileTime.set(file, (fileTime.get(file) ?? 0) + t);
  }
  // Inclusive time of our own functions (dist/): each sample counts once per function on its stack.
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => {
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/.*\/work\/main\//, '');
    return `${n.callFrame.functionName || '(anonymous)'}  ${url}:${n.callFrame.lineNumber + 1}`;
  };
  const inclusive = new Map();
  for (const [id, t] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n.callFrame.url.includes('/dist/') && !n.callFrame.url.includes('/bench/')) continue;
      const k = label(n);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const pct = (t) => ((100 * t) / total).toFixed(1).padStart(5) + '%';
  const lines = [`total sampled ${(total / 1000).toFixed(0)} ms`, '', 'self time by function:'];
  for (const [k, t] of [...fnTime].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(t)}  ${k}`);
  lines.push('', 'self time by file / package:');
  for (const [k, t] of [...fileTime].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(t)}  ${k}`);
  lines.push('', 'inclusive time, project functions:');
  for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(t)}  ${k}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(summarizeProfile(process.argv[2], Number(process.argv[3] ?? 25)));
}
