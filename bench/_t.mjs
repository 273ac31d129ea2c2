import { run } from './slots.mjs';
const r = await run({ quick: process.argv[2]==='q' });
for (const s of r.sections) { console.log(s.caption); for (const row of s.rows) console.log(row.join(' | ')); }
console.log(r.notes.join('\n')); console.log(r.targets);
