#!/usr/bin/env node
/**
 * Drives the MCP tools as an assistant would, reading only content[].text, for five requests:
 * a plain booking, a paid one, a full class, a late change and a question about past bookings.
 * Prints every text the assistant would read. Run after `npm run build`:
 *
 *   node scripts/assistant-walk.mjs
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const client = new Client({ name: 'assistant-walk', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin/usp-server.js'), 'mcp', '--demo', '--db', ':memory:'],
    cwd: ROOT,
    stderr: 'ignore',
  }),
);
const BUYER = { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com' };
const day = (n) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + n * 86_400_000));
const say = async (name, args = {}) => {
  let r;
  try {
    r = await client.callTool({ name, arguments: args });
  } catch (e) {
    console.log(`\n> ${name} ${JSON.stringify(args)}\n  JSON-RPC error: ${e.message}`);
    return null;
  }
  const text = r.content.map((c) => c.text).join('\n');
  console.log(
    `\n> ${name} ${JSON.stringify(args)}\n${text.length > 1500 ? `${text.slice(0, 1500)} ...[${text.length} chars]` : text}`,
  );
  return r;
};
/** What the assistant can read off the text: the first slot id, booking id, etc. */
const first = (r, re) => re.exec(r.content.map((c) => c.text).join('\n'))?.[1];

console.log('=== 1. "Book me a haircut on Friday"');
await say('usp_services_list', { query: 'haircut' });
let a = await say('usp_availability_query', { service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
await say('usp_bookings_create', {
  service_id: 'svc_haircut',
  slot_id: first(a, /(slot_[A-Za-z0-9_-]{8,})/),
  buyer: { ...BUYER, phone: '+12125550100' },
});

console.log('\n=== 2. "Book a deep tissue massage" (paid online)');
await say('usp_services_get', { service_id: 'svc_massage_60' });
a = await say('usp_availability_query', { service_id: 'svc_massage_60', start_date: day(3), end_date: day(3) });
await say('usp_bookings_create', {
  service_id: 'svc_massage_60',
  slot_id: first(a, /(slot_[A-Za-z0-9_-]{8,})/),
  buyer: BUYER,
});

console.log('\n=== 3. "Get me into the 7:00 yoga class in two days" (full)');
a = await say('usp_availability_query', { service_id: 'svc_yoga_class', start_date: day(2), end_date: day(2) });
await say('usp_bookings_create', {
  service_id: 'svc_yoga_class',
  slot_id: first(a, /(slot_[A-Za-z0-9_-]{8,})/),
  buyer: { ...BUYER, email: 'group@example.com' },
  party_size: 12,
});
a = await say('usp_availability_query', { service_id: 'svc_yoga_class', start_date: day(2), end_date: day(2) });
await say('usp_waitlist_join', {
  service_id: 'svc_yoga_class',
  slot_id: first(a, /FULL: waitlist only\) (slot_[\w-]+)/),
  buyer: BUYER,
});

console.log('\n=== 4. "Move my haircut tomorrow to later that day" (inside the late window)');
a = await say('usp_availability_query', {
  service_id: 'svc_haircut',
  start_date: day(1),
  end_date: day(1),
  resource_id: 'res_stylist_ava',
});
const slots = [...a.content[0].text.matchAll(/(slot_[A-Za-z0-9_-]{8,})/g)].map((m) => m[1]);
const b = await say('usp_bookings_create', { service_id: 'svc_haircut', slot_id: slots[0], buyer: BUYER });
const id = first(b, /Booking (bkg_\w+)/);
await say('uspserver_bookings_quote', { booking_id: id, change: 'reschedule' });
await say('usp_bookings_reschedule', { booking_id: id, slot_id: slots[slots.length - 1] });
await say('uspserver_bookings_quote', { booking_id: id, change: 'cancel' });

console.log('\n=== 5. "What did I book?"');
await say('usp_bookings_list', {});
await say('usp_bookings_get', { booking_id: id });
await client.close();
