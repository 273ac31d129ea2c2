const mod = await import(`./${process.argv[2]}.mjs`);
const r = await mod.run({ quick: process.argv[3]==='q' });
for (const s of r.sections) { console.log(s.caption); for (const row of s.rows) console.log(row.join(' | ')); }
console.log(r.notes.join('\n')); console.log(r.targets);
