/**
 * Benchmark 11: what one poll of a staff calendar with 1,000 events costs. A loopback iCalendar
 * feed (800 single events over the next months, 200 weekly series of 10 with an EXDATE each, all in
 * New York time with its VTIMEZONE) is polled by the calendar poller from dist/ against a SQLite
 * file: the first poll (fetch, expand, store the busy claims), a poll of the same body without a
 * validator (fetch, expand, compare: nothing written), and a conditional poll answered 304.
 * The floor is what any poller pays for this feed: a plain `fetch` of the same body over the same
 * loopback and ical.js parsing it (no expansion, no store), interleaved with the polls; the first
 * poll is held to a ratio of it, which the machine's load moves less than a time.
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CalendarPoller, calendarFeeds } from '../dist/calendars/index.js';
import { expandBusy } from '../dist/calendars/expand.js';
import { silentLogger } from '../dist/operations/index.js';
import { openSqliteStore } from '../dist/store/index.js';
import ICAL from 'ical.js';
import { BENCH_NOW, ZONE, fmtMs, fmtX, summarize } from './lib.mjs';

/** The first poll of the 1,000-event feed, at most this many times the floor (fetch + parse). */
const TARGET_RATIO = 25;

const pad = (n) => String(n).padStart(2, '0');
function localStamp(ms) {
  const d = new Date(ms - 5 * 3_600_000);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}0000`;
}

/** A calendar of `singles` events and `series` weekly series of 10. */
export function benchCalendar(singles = 800, series = 200) {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//usp-server bench//EN',
    'BEGIN:VTIMEZONE',
    'TZID:America/New_York',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'TZOFFSETTO:-0400',
    'DTSTART:19700308T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'TZOFFSETTO:-0500',
    'DTSTART:19701101T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'END:STANDARD',
    'END:VTIMEZONE',
  ];
  for (let i = 0; i < singles; i++) {
    const start = BENCH_NOW + (i % 200) * 86_400_000 + ((i * 7) % 8) * 3_600_000;
    lines.push(
      'BEGIN:VEVENT',
      `UID:single-${i}@bench`,
      'DTSTAMP:20261001T000000Z',
      `DTSTART;TZID=America/New_York:${localStamp(start)}`,
      `DTEND;TZID=America/New_York:${localStamp(start + 3_600_000)}`,
      `SUMMARY:Event ${i}`,
      'END:VEVENT',
    );
  }
  for (let i = 0; i < series; i++) {
    const start = BENCH_NOW + (i % 7) * 86_400_000 + (i % 9) * 3_600_000;
    lines.push(
      'BEGIN:VEVENT',
      `UID:series-${i}@bench`,
      'DTSTAMP:20261001T000000Z',
      `DTSTART;TZID=America/New_York:${localStamp(start)}`,
      `DTEND;TZID=America/New_York:${localStamp(start + 1_800_000)}`,
      'RRULE:FREQ=WEEKLY;COUNT=10',
      `EXDATE;TZID=America/New_York:${localStamp(start + 14 * 86_400_000)}`,
      `SUMMARY:Series ${i}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

export async function run({ quick }) {
  const body = benchCalendar();
  let conditional = false;
  const http = createServer((req, res) => {
    if (conditional && req.headers['if-none-match'] === '"v1"') {
      res.writeHead(304, { etag: '"v1"' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/calendar', ...(conditional ? { etag: '"v1"' } : {}) });
    res.end(body);
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${http.address().port}/staff.ics`;
  const dir = mkdtempSync(join(tmpdir(), 'usp-bench-cal-'));
  const store = openSqliteStore({ path: join(dir, 'cal.db') });
  const feeds = calendarFeeds([{ id: 'res_staff', calendars: [{ type: 'ics', url }] }]);
  const rounds = quick ? 3 : 30;
  const samples = { floor: [], expand: [], first: [], same: [], notModified: [] };
  let busy = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      conditional = false;
      const f0 = performance.now();
      const parsed = ICAL.parse(await (await fetch(url)).text());
      samples.floor.push(performance.now() - f0);
      if (!Array.isArray(parsed)) throw new Error('calendar bench: the floor did not parse');
      const t0 = performance.now();
      busy = expandBusy(body, {
        zone: ZONE,
        fromMs: BENCH_NOW - 86_400_000,
        toMs: BENCH_NOW + 400 * 86_400_000,
      }).length;
      samples.expand.push(performance.now() - t0);
      // A fresh poller and feed state each round: the first poll writes every busy claim.
      await store.transaction((tx) => tx.calendars.forgetFeedsExcept([]));
      conditional = false;
      const poller = new CalendarPoller({
        store,
        feeds,
        zone: ZONE,
        businessId: 'bench',
        now: () => BENCH_NOW,
        log: silentLogger,
        limits: { allowLoopback: true },
      });
      let t = performance.now();
      const first = await poller.pollAll();
      samples.first.push(performance.now() - t);
      if (first[0].outcome !== 'updated') throw new Error(`calendar bench: first poll ${JSON.stringify(first)}`);
      t = performance.now();
      const same = await poller.pollAll();
      samples.same.push(performance.now() - t);
      if (same[0].outcome !== 'unchanged') throw new Error(`calendar bench: same body ${JSON.stringify(same)}`);
      conditional = true;
      await poller.pollAll(); // stores the ETag
      t = performance.now();
      const nm = await poller.pollAll();
      samples.notModified.push(performance.now() - t);
      if (nm[0].outcome !== 'unchanged') throw new Error(`calendar bench: 304 ${JSON.stringify(nm)}`);
    }
  } finally {
    await store.close();
    await new Promise((r) => http.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (name, s) => {
    const x = summarize(s);
    return [name, fmtMs(x.p50), fmtMs(x.p95 ?? x.max)];
  };
  const firstP50 = summarize(samples.first).p50;
  // The ratio per round (floor and poll measured back to back), then its median.
  const ratios = samples.first.map((f, i) => f / samples.floor[i]).sort((a, b) => a - b);
  const ratio = ratios[Math.floor(ratios.length / 2)];
  return {
    id: 'calendars',
    title: '11. Calendar sync: one poll of a feed with 1,000 events',
    sections: [
      {
        caption: `A ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB feed: 800 events and 200 weekly series of 10 (${busy} busy intervals after merging), ${rounds} rounds`,
        header: ['step', 'p50', 'p95'],
        rows: [
          row('floor: plain fetch of the body + ical.js parse', samples.floor),
          row('expand only (ical.js, in memory)', samples.expand),
          row('first poll: fetch, expand, store', samples.first),
          row('same body again: fetch, expand, compare (no write)', samples.same),
          row('conditional poll answered 304', samples.notModified),
        ],
      },
    ],
    notes: [
      'Loopback HTTP; SQLite file in WAL mode. A poll of an unchanged calendar writes nothing, so the availability cache keeps its answers.',
    ],
    targets: [
      { name: 'First poll of a 1,000-event feed', target: '< 1 s', value: fmtMs(firstP50), ok: firstP50 < 1000 },
      {
        name: 'First poll of a 1,000-event feed vs floor (fetch + parse)',
        target: `within ${TARGET_RATIO}×`,
        value: `${fmtX(ratio)} (median of ${rounds} rounds)`,
        ok: ratio <= TARGET_RATIO,
      },
    ],
  };
}
