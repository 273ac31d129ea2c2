import { createUspServer } from '../dist/server/compose.js';
import { ManualClock, silentLogger } from '../dist/operations/index.js';
import { operationByName } from '../dist/operations/table.js';
import { generatedBusiness, BENCH_NOW, ZONE, benchDate } from './lib.mjs';
import { slotIdEncoder } from '../dist/domain/slot-id.js';
import { localToUtcMs } from '../dist/domain/time.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const db = process.argv[2] === 'mem' ? ':memory:' : join(mkdtempSync(join(tmpdir(), 'x-')), 'b.db');
const s = await createUspServer({ business: generatedBusiness({ staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365 }), db, sandbox: true, clock: new ManualClock(BENCH_NOW), log: silentLogger, sweepIntervalMs: 0 });
const hold = operationByName('hold_slot'), create = operationByName('create_booking');
const enc = new Map(); let j = 0;
const next = () => { const day = 1 + (j % 360), k = Math.floor(j / 360); j++; const rid = `res_staff_${String(k % 50).padStart(3,'0')}`; let e = enc.get(rid); if (!e) enc.set(rid, e = slotIdEncoder('svc_bench',[rid])); return e(localToUtcMs(benchDate(day), '09:00', ZONE) + Math.floor(k/50)*900000); };
const pres = { binding: 'rest', http: { method: 'POST', url: 'http://127.0.0.1/x', headers: {}, body: new Uint8Array() } };
const t = { hold: 0, create: 0 }; let n = 0;
const t0 = Date.now();
while (Date.now() - t0 < 5000) {
  const slot = next(); const profile = `https://p${n % 64}.example/p.json`;
  let a = process.hrtime.bigint();
  const h = await s.pipeline.execute(hold, { input: { service_id: 'svc_bench', slot_id: slot }, profile, idempotencyKey: randomUUID(), ifMatch: null, presented: pres });
  t.hold += Number(process.hrtime.bigint() - a) / 1e6; a = process.hrtime.bigint();
  if (h.status !== 201) throw new Error(JSON.stringify(h).slice(0,300));
  const b = await s.pipeline.execute(create, { input: { service_id: 'svc_bench', slot_id: slot, hold_id: h.data.hold.id, buyer: { first_name: 'A', last_name: 'B', email: 'a@example.com' } }, profile, idempotencyKey: randomUUID(), ifMatch: null, presented: pres });
  t.create += Number(process.hrtime.bigint() - a) / 1e6;
  if (b.status !== 201) throw new Error(JSON.stringify(b).slice(0,300));
  n++;
  if (n % 1000 === 0) console.log(n, 'hold ms', (t.hold / n).toFixed(3), 'create ms', (t.create / n).toFixed(3));
}
console.log(db, 'bookings', n, 'per s', n / 5, 'hold ms', (t.hold / n).toFixed(3), 'create ms', (t.create / n).toFixed(3));
