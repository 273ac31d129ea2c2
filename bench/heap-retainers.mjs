/**
 * Where the heap of each loaded business sits, by retainer: the dominator tree of the second snapshot
 * (bench/heap-snapshots.mjs) restricted to objects absent from the first (snapshot ids are stable in
 * one process), siblings of the same kind merged and sizes divided by N. Weak edges do not retain.
 *   node --max-old-space-size=4000 bench/heap-retainers.mjs A B N [min bytes per business] [depth]
 */
import { readFileSync } from 'node:fs';
const [fa, fb, nArg, thrArg, depthArg] = process.argv.slice(2);
const N = Number(nArg ?? 100),
  THR = Number(thrArg ?? 200) * N,
  DEPTH = Number(depthArg ?? 14);
function load(f) {
  return JSON.parse(readFileSync(f, 'utf8'));
}
const A = load(fa);
const af = A.snapshot.meta.node_fields.length,
  aid = A.snapshot.meta.node_fields.indexOf('id');
const oldIds = new Set();
for (let i = 0; i < A.nodes.length; i += af) oldIds.add(A.nodes[i + aid]);
const S = load(fb);
const meta = S.snapshot.meta;
const nf = meta.node_fields.length;
const ef = meta.edge_fields.length;
const ntypes = meta.node_types[0],
  etypes = meta.edge_types[0];
const ti = meta.node_fields.indexOf('type'),
  ni = meta.node_fields.indexOf('name'),
  ii = meta.node_fields.indexOf('id'),
  si = meta.node_fields.indexOf('self_size'),
  eci = meta.node_fields.indexOf('edge_count');
const eti = meta.edge_fields.indexOf('type'),
  eni = meta.edge_fields.indexOf('name_or_index'),
  eto = meta.edge_fields.indexOf('to_node');
const nodes = S.nodes,
  edges = S.edges,
  strings = S.strings;
const n = nodes.length / nf;
const firstEdge = new Uint32Array(n + 1);
{
  let e = 0;
  for (let i = 0; i < n; i++) {
    firstEdge[i] = e;
    e += nodes[i * nf + eci] * ef;
  }
  firstEdge[n] = e;
}
const isNew = new Uint8Array(n);
for (let i = 0; i < n; i++) if (!oldIds.has(nodes[i * nf + ii])) isNew[i] = 1;
const weak = etypes.indexOf('weak'),
  shortcut = etypes.indexOf('shortcut');
const edgeName = (e) => {
  const t = etypes[edges[e + eti]];
  const v = edges[e + eni];
  return t === 'element' || t === 'hidden' ? `[${v}]` : String(strings[v]);
};
// DFS postorder from root 0
const order = new Int32Array(n).fill(-1);
const post = [];
const pEdge = new Int32Array(n).fill(-1);
{
  const stack = [0];
  const it = new Uint32Array(n);
  order[0] = -2;
  it[0] = firstEdge[0];
  while (stack.length) {
    const v = stack[stack.length - 1];
    let pushed = false;
    while (it[v] < firstEdge[v + 1]) {
      const e = it[v];
      it[v] += ef;
      const t = edges[e + eti];
      if (t === weak || t === shortcut) continue;
      const w = edges[e + eto] / nf;
      if (order[w] !== -1) continue;
      order[w] = -2;
      pEdge[w] = e;
      it[w] = firstEdge[w];
      stack.push(w);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[v] = post.length;
      post.push(v);
    }
  }
}
// predecessors
const predCount = new Uint32Array(n + 1);
for (let v = 0; v < n; v++) {
  if (order[v] < 0) continue;
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += ef) {
    const t = edges[e + eti];
    if (t === weak || t === shortcut) continue;
    predCount[edges[e + eto] / nf]++;
  }
}
const predStart = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) predStart[i + 1] = predStart[i] + predCount[i];
const preds = new Int32Array(predStart[n]);
const fill = predStart.slice();
for (let v = 0; v < n; v++) {
  if (order[v] < 0) continue;
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += ef) {
    const t = edges[e + eti];
    if (t === weak || t === shortcut) continue;
    const w = edges[e + eto] / nf;
    preds[fill[w]++] = v;
  }
}
const idom = new Int32Array(n).fill(-1);
idom[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (order[a] < order[b]) a = idom[a];
    while (order[b] < order[a]) b = idom[b];
  }
  return a;
};
let changed = true,
  passes = 0;
while (changed) {
  changed = false;
  passes++;
  for (let k = post.length - 1; k >= 0; k--) {
    const v = post[k];
    if (v === 0) continue;
    let nd = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) {
      const u = preds[p];
      if (idom[u] === -1) continue;
      nd = nd === -1 ? u : intersect(u, nd);
    }
    if (nd !== -1 && idom[v] !== nd) {
      idom[v] = nd;
      changed = true;
    }
  }
}
// retained size of new objects
const ret = new Float64Array(n);
for (let i = 0; i < n; i++) if (isNew[i]) ret[i] = nodes[i * nf + si];
for (let k = 0; k < post.length; k++) {
  const v = post[k];
  if (v !== 0) ret[idom[v]] += ret[v];
}
const kids = new Map();
for (let v = 1; v < n; v++)
  if (order[v] >= 0 && ret[v] > 0) {
    const d = idom[v];
    let a = kids.get(d);
    if (!a) kids.set(d, (a = []));
    a.push(v);
  }
const label = (v) => {
  const t = ntypes[nodes[v * nf + ti]];
  let nm = strings[nodes[v * nf + ni]];
  if (t === 'string' || t === 'concatenated string') nm = '"' + nm.slice(0, 20) + '"';
  if (t === 'code') nm = nm.slice(0, 30);
  const pe =
    pEdge[v] >= 0 && pEdge[v] >= firstEdge[idom[v]] && pEdge[v] < firstEdge[idom[v] + 1]
      ? '.' + edgeName(pEdge[v])
      : ' via ' + (pEdge[v] >= 0 ? edgeName(pEdge[v]) : '?');
  return `${t} ${String(nm).slice(0, 50)}${pe}`;
};
function show(group, depth, indent) {
  const m = new Map();
  for (const g of group)
    for (const c of kids.get(g) ?? []) {
      const k = label(c);
      let e = m.get(k);
      if (!e) m.set(k, (e = { list: [], r: 0, self: 0 }));
      e.list.push(c);
      e.r += ret[c];
      e.self += isNew[c] ? nodes[c * nf + si] : 0;
    }
  const rows = [...m].sort((x, y) => y[1].r - x[1].r);
  for (const [k, e] of rows) {
    if (e.r < THR) continue;
    console.log(
      `${indent}${(e.r / N).toFixed(0).padStart(7)} B  x${(e.list.length / N).toFixed(2)}  self ${(e.self / N).toFixed(0)}  ${k}`,
    );
    if (depth < DEPTH) show(e.list, depth + 1, indent + '  ');
  }
}
console.log('passes', passes, 'new total per business', (ret[0] / N).toFixed(0));
show([0], 0, '');
