import * as b from './bookings.mjs';
const r = await b.run({ quick: false, cpuProf: process.env.PROF });
console.log(r.sections[0].rows.map(r=>r.join(' | ')).join('\n')); console.log(r.notes.join('\n'));
