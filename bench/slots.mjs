/**
 * Benchmark 1: slot computation in-process (generateSlots from dist/domain/slots.js).
 *
 * A generated business (bench/lib.mjs generatedBusiness): one appointment service deliverable by
 * N staff, 15-minute slots at 15-minute intervals, 09:00-18:00 every day, and 30% of the slots of
 * every staff member claimed by synthetic bookings (seeded, so every run sees the same claims).
 * Queries start at the next local midnight; the claims cover the query range plus a day either
 * side, as the availability engine loads them.
 */
import { generateSlots } from '../dist/domain/slots.js';
import { localToUtcMs } from '../dist/domain/time.js';
import { BENCH_NOW, ZONE, benchDate, fmtMs, fmtUs, fmt, generatedBusiness, summarize, timeLoop, verdict } from './lib.mjs';

const TARGET_MEDIAN_MS = 2;
const INTERVAL_MIN = 15;
const DURATION_MIN = 15;
const CLAIMED = 0.3;

/** Mulberry32: a small seeded PRNG. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A query over `days` days for `staff` staff, with 30% of each staff member's slots claimed. */
export function buildQuery(staff, days) {
  const def = generatedBusiness({ staff, interval: INTERVAL_MIN, duration: DURATION_MIN, maxAdvanceDays: 60 });
  const service = def.services[0];
  const resources = new Map(def.resources.map((r) => [r.id, r]));
  const fromMs = localToUtcMs(benchDate(1), '00:00', ZONE);
  const toMs = localToUtcMs(benchDate(1 + days), '00:00', ZONE);
  const random = rng(0x5eed + staff * 131 + days);
  const claims = [];
  const perDay = ((18 - 9) * 60) / INTERVAL_MIN;
  for (let d = 0; d <= days + 1; d++) {
    const open = localToUtcMs(benchDate(d), '09:00', ZONE);
    for (const r of def.resources) {
      // Exactly 30% of the day's grid, chosen at random (partial Fisher-Yates).
      const idx = Array.from({ length: perDay }, (_, i) => i);
      const take = Math.round(perDay * CLAIMED);
      for (let i = 0; i < take; i++) {
        const j = i + Math.floor(random() * (perDay - i));
        [idx[i], idx[j]] = [idx[j], idx[i]];
        const start = open + idx[i] * INTERVAL_MIN * 60_000;
        claims.push({
          resourceId: r.id,
          startMs: start,
          endMs: start + DURATION_MIN * 60_000,
          slotKey: `${service.id}|${start}|${r.id}`,
          ownerId: `bkg_synthetic_${claims.length}`,
          spots: 1,
          isHold: false,
        });
      }
    }
  }
  return { service, resources, zone: ZONE, fromMs, toMs, nowMs: BENCH_NOW, claims, partySize: 1 };
}

function measure(staff, days, ms) {
  const q = buildQuery(staff, days);
  const slots = generateSlots(q).length;
  const expected = staff * days * (36 - Math.round(36 * CLAIMED));
  if (slots !== expected) throw new Error(`slots: expected ${expected} offerable slots for ${staff} staff × ${days} days, got ${slots}`);
  const samples = timeLoop(() => generateSlots(q), { ms, warmup: Math.min(50, Math.max(5, Math.round(2000 / (staff * days)))), minIter: 5 });
  return { staff, days, slots, claims: q.claims.length, ...summarize(samples) };
}

/** Least-squares fit t = a + b·x, with R². */
function fit(points) {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
    syy += (p.y - my) ** 2;
  }
  const b = sxy / sxx;
  const a = my - b * mx;
  return { a, b, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy) };
}

/**
 * Growth along one axis: per-unit cost at each point, the marginal cost between points, and a
 * verdict. Linear when the straight-line fit explains ≥ 98% of the variance and every marginal
 * cost stays within ±35% of the end-to-end one.
 */
function growth(rows, axis) {
  const pts = rows.map((r) => ({ x: r[axis], y: r.p50 }));
  const f = fit(pts);
  const overall = (pts.at(-1).y - pts[0].y) / (pts.at(-1).x - pts[0].x);
  const marginals = [];
  for (let i = 1; i < pts.length; i++) marginals.push((pts[i].y - pts[i - 1].y) / (pts[i].x - pts[i - 1].x));
  const spread = Math.max(...marginals.map((m) => Math.abs(m / overall - 1)));
  const perUnit = pts.map((p) => p.y / p.x);
  return {
    axis,
    fit: f,
    overall,
    marginals,
    perUnit,
    perUnitRatio: perUnit.at(-1) / perUnit[0],
    linear: f.r2 >= 0.98 && spread <= 0.35,
  };
}

export async function run({ quick }) {
  const ms = quick ? 60 : 1200;
  const main = measure(10, 7, quick ? 100 : 3000);
  const byDays = [1, 7, 14, 30].map((d) => (d === 7 ? main : measure(10, d, ms)));
  const byStaff = [1, 10, 25, 50].map((s) => (s === 10 ? main : measure(s, 7, ms)));
  const gDays = growth(byDays, 'days');
  const gStaff = growth(byStaff, 'staff');
  const ok = main.p50 < TARGET_MEDIAN_MS;

  const row = (r) => [`${r.staff} staff × ${r.days} d`, fmt(r.slots, 0), fmt(r.claims, 0), fmtMs(r.p50), fmtMs(r.p99), fmtUs(r.p50 / r.slots) + '/slot'];
  const header = ['query', 'slots offered', 'claims', 'median', 'p99', 'per slot'];
  const describeGrowth = (g, unit) =>
    `${g.linear ? 'linear' : 'NOT linear'}: ${fmtUs(g.fit.b)} per ${unit} (fit R² ${g.fit.r2.toFixed(3)}, fixed part ${fmtUs(Math.max(0, g.fit.a))}); ` +
    `marginal cost per ${unit} ${g.marginals.map((m) => fmtUs(m)).join(' → ')}; median per ${unit} ${g.perUnit.map((p) => fmtUs(p)).join(' → ')} (last/first ${g.perUnitRatio.toFixed(2)})`;

  return {
    id: 'slots',
    title: '1. Slot computation (in-process)',
    sections: [
      { caption: 'Growth in days (10 staff)', header, rows: byDays.map(row) },
      { caption: 'Growth in staff (7 days)', header, rows: byStaff.map(row) },
    ],
    notes: [
      `Days: ${describeGrowth(gDays, 'day')}.`,
      `Staff: ${describeGrowth(gStaff, 'staff member')}.`,
      'Business: one appointment service, N staff, 15-minute slots every 15 minutes 09:00–18:00 every day, 30% of each staff member\'s slots claimed (11 of 36 a day, seeded synthetic claims); `generateSlots` only (no store, no presentation).',
    ],
    targets: [{ name: 'Slots: median, 7 days × 10 staff', target: `< ${TARGET_MEDIAN_MS} ms`, value: fmtMs(main.p50), ok }],
    data: { main, byDays, byStaff, growth: { days: gDays, staff: gStaff } },
  };
}
