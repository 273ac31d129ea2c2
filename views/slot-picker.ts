/**
 * The slot picker (usp_availability_query): the free slots by day in the person's time zone, the
 * business's time beside each when the zones differ, staff names, full classes marked, "more times"
 * fetching the next page or range through the host, and a chosen slot either held (tools/call
 * usp_availability_hold) or handed to the assistant (ui/message).
 */
import { HostBridge, type ToolResult } from './bridge.js';
import { clock, dayKey, dayLabel, h, mount, personZone, status } from './dom.js';
import { failure, viewData, type ViewData } from './shared.js';

interface Slot {
  id: string;
  service_id: string;
  start: string;
  end: string;
  state?: string;
  capacity?: { total?: number; remaining?: number };
  resources?: Array<{ id: string; name?: string; type?: string }>;
  location?: { id: string; name?: string };
}

let args: Record<string, any> = {};
let slots: Slot[] = [];
let pagination: { has_more?: boolean; cursor?: string; next_cursor?: string } | undefined;
let data: ViewData | undefined;
let chosen: Slot | null = null;
let note: HTMLElement | null = null;
let busy = false;

const bridge = new HostBridge('usp-slot-picker', {
  onInput(a) {
    args = a;
  },
  onResult(r) {
    take(r, false);
    render();
  },
  onContext() {
    render();
  },
});

function take(r: ToolResult, append: boolean): void {
  const err = failure(r);
  const sc = r.structuredContent ?? {};
  data = viewData(r) ?? data;
  const got = (sc.slots ?? []) as Slot[];
  slots = append ? [...slots, ...got.filter((s) => !slots.some((x) => x.id === s.id))] : got;
  pagination = sc.pagination;
  note = err ? status(err, 'error') : null;
}

const staff = (s: Slot) => (s.resources ?? []).map((r) => r.name ?? r.id).join(', ');
const isFull = (s: Slot) => s.state === 'waitlist' || s.capacity?.remaining === 0;

function nextDay(date: string, n: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

async function more(): Promise<void> {
  if (busy) return;
  busy = true;
  const next = { ...args };
  if (pagination?.has_more && (pagination.next_cursor ?? pagination.cursor)) next.cursor = pagination.next_cursor ?? pagination.cursor;
  else if (typeof args.end_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(args.end_date)) {
    delete next.cursor;
    next.start_date = nextDay(args.end_date, 1);
    next.end_date = nextDay(args.end_date, 7);
    args = next;
  }
  note = status('Loading more times…');
  render();
  try {
    take(await bridge.callTool('usp_availability_query', next), true);
  } catch (e) {
    note = status(`Could not load more times: ${(e as Error).message}`, 'error');
  }
  busy = false;
  render();
}

function slotWords(s: Slot, zone: string): string {
  const start = Date.parse(s.start);
  const who = staff(s);
  return `${dayLabel(start, zone)} ${clock(start, zone)}${who ? ` with ${who}` : ''}`;
}

async function hold(): Promise<void> {
  if (!chosen || busy) return;
  busy = true;
  const s = chosen;
  note = status('Holding…');
  render();
  try {
    const r = await bridge.callTool('usp_availability_hold', { service_id: s.service_id, slot_id: s.id, ...(args.party_size ? { spots: args.party_size } : {}) });
    const err = failure(r);
    const held = r.structuredContent?.hold;
    if (err || !held) note = status(err ?? 'The slot could not be held.', 'error');
    else {
      const zone = personZone(bridge.context.timeZone);
      note = status(`Held ${slotWords(s, zone)} until ${clock(Date.parse(held.expires_at), zone)}. Nothing is booked yet.`);
      await bridge.updateModelContext(`The person held slot ${s.id} (${s.start}, ${staff(s) || 'no staff named'}) for ${s.service_id}: hold ${held.id}, expires ${held.expires_at}. Book it with usp_bookings_create and hold_id ${held.id}.`, { hold: held, slot: s });
    }
  } catch (e) {
    note = status(`Could not hold: ${(e as Error).message}`, 'error');
  }
  busy = false;
  render();
}

async function tell(): Promise<void> {
  if (!chosen || busy) return;
  const s = chosen;
  const zone = data?.zone ?? 'UTC';
  try {
    await bridge.sendMessage(`I choose ${slotWords(s, zone)} (${zone}): slot_id ${s.id}, service_id ${s.service_id}.`);
    note = status('Sent to the assistant.');
  } catch (e) {
    note = status(`Could not send: ${(e as Error).message}`, 'error');
  }
  render();
}

function render(): void {
  const zone = personZone(bridge.context.timeZone);
  const bizZone = data?.zone ?? zone;
  const two = bizZone !== zone;
  const days = new Map<string, Slot[]>();
  for (const s of [...slots].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))) {
    const k = dayKey(Date.parse(s.start), zone);
    if (!days.has(k)) days.set(k, []);
    days.get(k)!.push(s);
  }
  const title = h('h1', {}, data?.service ?? 'Available times');
  const sub = h('p', { class: 'sub' }, `${data?.business ? `${data.business} · ` : ''}times in ${zone}${two ? `, business time (${bizZone}) in brackets` : ''}`);
  const list = [...days].map(([, ds]) =>
    h(
      'section',
      { 'aria-label': dayLabel(Date.parse(ds[0].start), zone) },
      h('h2', {}, dayLabel(Date.parse(ds[0].start), zone)),
      h(
        'div',
        { class: 'slots' },
        ...ds.map((s) => {
          const start = Date.parse(s.start);
          const full = isFull(s);
          const left = s.capacity?.remaining;
          const label = `${clock(start, zone)}${two ? ` (${clock(start, bizZone)})` : ''}`;
          const extra = [staff(s), full ? 'full, waitlist' : typeof left === 'number' ? `${left} left` : ''].filter(Boolean).join(' · ');
          return h(
            'button',
            {
              class: `slot${full ? ' full' : ''}`,
              type: 'button',
              'data-slot-id': s.id,
              'aria-pressed': chosen?.id === s.id ? 'true' : 'false',
              onclick: () => {
                chosen = s;
                note = null;
                render();
              },
            },
            label,
            extra ? h('small', {}, extra) : null,
          );
        }),
      ),
    ),
  );
  const empty = slots.length === 0 ? status('No free times in this range.') : null;
  const actions = h(
    'div',
    { class: 'actions' },
    chosen && !isFull(chosen) && bridge.hostCapabilities.serverTools ? h('button', { class: 'primary', type: 'button', 'data-action': 'hold', onclick: () => void hold() }, 'Hold this time') : null,
    chosen ? h('button', { type: 'button', 'data-action': 'tell', onclick: () => void tell() }, isFull(chosen) ? 'Ask the assistant to join the waitlist' : 'Tell the assistant') : null,
    bridge.hostCapabilities.serverTools ? h('button', { type: 'button', 'data-action': 'more', onclick: () => void more() }, pagination?.has_more ? 'More times' : 'Show more days') : null,
  );
  mount(h('main', {}, title, sub, ...list, empty ?? '', actions, note ?? ''));
}

render();
void bridge.connect().then(render, (e) => mount(h('main', {}, status(`Could not reach the host: ${(e as Error).message}`, 'error'))));
