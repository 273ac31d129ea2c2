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
import { BENCH_NOW, ZONE, benchDate, fmtMs, fmtUs, fmt, generatedBusiness, summarize, timeLoop } from './lib.mjs';

const TARGET_MEDIAN_MS = 0.3; // issue 40: slots for 7 days × 10 staff under 0.3 ms
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

/**
 * Times every configuration in interleaved rounds (each round runs each one for a short slice),
 * so a change in machine load during the run falls on all of them alike.
 */
function measureAll(configs, totalMs) {
  const runs = configs.map(([staff, days]) => {
    const q = buildQuery(staff, days);
    const slots = generateSlots(q).length;
    const expected = staff * days * (36 - Math.round(36 * CLAIMED));
    if (slots !== expected)
      throw new Error(`slots: expected ${expected} offerable slots for ${staff} staff × ${days} days, got ${slots}`);
    for (let i = 0; i < 20; i++) generateSlots(q);
    return { staff, days, slots, claims: q.claims.length, q, samples: [] };
  });
  const sliceMs = Math.max(5, Math.min(40, totalMs / 30 / runs.length));
  const deadline = Date.now() + totalMs;
  while (Date.now() < deadline || runs.some((r) => r.samples.length < 5)) {
    for (const r of runs) r.samples.push(...timeLoop(() => generateSlots(r.q), { ms: sliceMs, minIter: 1 }));
  }
  return runs.map(({ q: _q, samples, ...r }) => ({ ...r, ...summarize(samples) }));
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
 * Growth along one axis: per-unit cost at each point, the marginal cost between points, the
 * straight-line fit, and the growth exponent k of t ∝ x^k fitted on the points past the first
 * (the first carries the fixed cost). Linear when k ≤ 1.15 and the line explains ≥ 98% of the variance.
 */
function growth(rows, axis) {
  const pts = rows.map((r) => ({ x: r[axis], y: r.p50 }));
  const f = fit(pts);
  const marginals = [];
  for (let i = 1; i < pts.length; i++) marginals.push((pts[i].y - pts[i - 1].y) / (pts[i].x - pts[i - 1].x));
  const perUnit = pts.map((p) => p.y / p.x);
  const k = fit(pts.slice(1).map((p) => ({ x: Math.log(p.x), y: Math.log(p.y) }))).b;
  return {
    axis,
    fit: f,
    marginals,
    perUnit,
    perUnitRatio: perUnit.at(-1) / perUnit[1],
    exponent: k,
    linear: k <= 1.15 && f.r2 >= 0.98,
  };
}

export async function run({ quick }) {
  const configs = [
    [10, 7],
    [10, 1],
    [10, 14],
    [10, 30],
    [1, 7],
    [25, 7],
    [50, 7],
  ];
  const measured = measureAll(configs, quick ? 300 : 10_000);
  const at = (staff, days) => measured.find((m) => m.staff === staff && m.days === days);
  const main = at(10, 7);
  const byDays = [1, 7, 14, 30].map((d) => at(10, d));
  const byStaff = [1, 10, 25, 50].map((n) => at(n, 7));
  const gDays = growth(byDays, 'days');
  const gStaff = growth(byStaff, 'staff');
  const ok = main.p50 < TARGET_MEDIAN_MS;

  const row = (r) => [
    `${r.staff} staff × ${r.days} d`,
    fmt(r.slots, 0),
    fmt(r.claims, 0),
    fmtMs(r.p50),
    fmtMs(r.p99),
    fmtUs(r.p50 / r.slots) + '/slot',
  ];
  const header = ['query', 'slots offered', 'claims', 'median', 'p99', 'per slot'];
  const describeGrowth = (g, unit) =>
    `${g.linear ? 'linear' : 'faster than linear'} (t ∝ ${unit}^${g.exponent.toFixed(2)} past the first point; straight-line fit ${fmtUs(g.fit.b)} per ${unit}, R² ${g.fit.r2.toFixed(3)}); ` +
    `marginal cost per ${unit} ${g.marginals.map((m) => fmtUs(m)).join(' → ')}; median per ${unit} ${g.perUnit.map((p) => fmtUs(p)).join(' → ')} (last ÷ second ${g.perUnitRatio.toFixed(2)})`;

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
      "The seven configurations are timed in interleaved rounds (10 s in all), so a change in machine load falls on all of them alike. Business: one appointment service, N staff, 15-minute slots every 15 minutes 09:00–18:00 every day, 30% of each staff member's slots claimed (11 of 36 a day, seeded synthetic claims); `generateSlots` only (no store, no presentation).",
    ],
    targets: [
      { name: 'Slots: median, 7 days × 10 staff', target: `< ${TARGET_MEDIAN_MS} ms`, value: fmtMs(main.p50), ok },
    ],
    data: { main, byDays, byStaff, growth: { days: gDays, staff: gStaff } },
  };
}
