import * as b from './bookings.mjs';
for (const v of (process.argv[2] ?? 'dist').split(',')) {
  process.env.USP_BENCH_DIST = v === 'dist' ? '../dist' : `./${v}`;
  const r = await b.run({ quick: false });
  console.log(v, r.sections[0].rows[0].join(' | '));
}
