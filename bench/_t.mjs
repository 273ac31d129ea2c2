const mod = await import(`./${process.argv[2]}.mjs`);
const r = await mod.run({ quick: process.argv[3]==='q', cpuProf: process.env.PROF });
for (const s of r.sections) { console.log(s.caption); for (const row of s.rows) console.log(row.join(' | ')); }
console.log(r.notes.join('\n')); console.log(JSON.stringify(r.targets, null, 1)); if (r.memory) console.log(r.memory);
