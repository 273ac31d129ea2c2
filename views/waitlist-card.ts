/**
 * The waitlist card (join, get, decline): the entry's state and position, what happens next, and
 * while an offer stands its slot and deadline with accept and decline, called through the host.
 */
import { HostBridge, type ToolResult } from './bridge.js';
import { countdown, h, mount, personZone, status, when } from './dom.js';
import { failure, openPayment, serverClock, viewData, type ViewData } from './shared.js';

let entry: Record<string, any> | null = null;
let booking: Record<string, any> | null = null;
let data: ViewData | undefined;
let now = serverClock(undefined);
let note: HTMLElement | null = null;
let busy = false;
let timer: number | undefined;

const NEXT: Record<string, string> = {
  waiting: 'Nothing is booked yet. When a place frees, it is offered to the first in line; an offer must be accepted before it expires.',
  offered: 'A place is offered to you. Accept it before the deadline to book it, or decline to pass it on.',
  accepted: 'The offer was accepted and booked.',
  declined: 'The offer was declined; it went to the next in line.',
  expired: 'The offer expired; join again to get back in line.',
  removed: 'This entry is off the waitlist.',
};

const bridge = new HostBridge('usp-waitlist-card', {
  onResult(r) {
    take(r);
    render();
  },
  onContext() {
    render();
  },
});

function take(r: ToolResult): void {
  const sc = r.structuredContent ?? {};
  entry = sc.entry ?? entry;
  booking = sc.booking ?? booking;
  data = viewData(r) ?? data;
  now = serverClock(data);
  const err = failure(r);
  note = err ? status(err, 'error') : null;
}

async function act(tool: 'usp_waitlist_accept' | 'usp_waitlist_decline'): Promise<void> {
  if (!entry || busy) return;
  busy = true;
  note = status(tool === 'usp_waitlist_accept' ? 'Accepting…' : 'Declining…');
  render();
  try {
    const r = await bridge.callTool(tool, { entry_id: entry.id });
    take(r);
    if (!failure(r)) {
      const b = r.structuredContent?.booking;
      await bridge.updateModelContext(
        b ? `The person accepted waitlist offer ${entry.id}: booking ${b.id}, status ${b.status}.` : `The person declined waitlist offer ${entry.id}.`,
        r.structuredContent,
      );
    }
  } catch (e) {
    note = status(`Could not ${tool === 'usp_waitlist_accept' ? 'accept' : 'decline'}: ${(e as Error).message}`, 'error');
  }
  busy = false;
  render();
}

async function pay(url: string): Promise<void> {
  note = await openPayment(bridge, url);
  render();
}

function render(): void {
  if (timer !== undefined) clearTimeout(timer);
  if (!entry) return mount(h('main', {}, note ?? status('Waiting for the waitlist entry…')));
  const zone = personZone(bridge.context.timeZone);
  const st = String(entry.status);
  const parts: Array<Node | string> = [
    h('h1', {}, data?.service ? `Waitlist: ${data.service}` : 'Waitlist'),
    h('p', { class: 'sub' }, data?.business ?? ''),
    h('p', {}, h('span', { class: `badge ${st}`, 'data-state': st }, st), typeof entry.position === 'number' && st === 'waiting' ? ` Position ${entry.position} in line` : ''),
    h('p', {}, NEXT[st] ?? ''),
  ];
  if (st === 'offered' && entry.offered_slot) {
    const start = Date.parse(entry.offered_slot.start);
    parts.push(h('dl', {}, h('dt', {}, 'Offered'), h('dd', {}, when(start, zone))));
    if (entry.offer_expires_at) {
      const left = countdown(Date.parse(entry.offer_expires_at), now());
      parts.push(h('p', {}, `Accept before ${when(Date.parse(entry.offer_expires_at), zone)}: `, h('span', { class: 'countdown', 'data-countdown': '' }, left ? `${left} left` : 'the time is up')));
      if (left) timer = window.setTimeout(render, 1000);
    }
    if (bridge.hostCapabilities.serverTools) {
      parts.push(
        h(
          'div',
          { class: 'actions' },
          h('button', { class: 'primary', type: 'button', 'data-action': 'accept', disabled: busy, onclick: () => void act('usp_waitlist_accept') }, 'Accept and book'),
          h('button', { type: 'button', 'data-action': 'decline', disabled: busy, onclick: () => void act('usp_waitlist_decline') }, 'Decline'),
        ),
      );
    }
  }
  if (booking) {
    const start = Date.parse(booking.slot?.start);
    parts.push(h('h2', {}, 'Booking'), h('p', { 'data-booking-id': booking.id }, `${booking.service_name ?? ''}, ${Number.isNaN(start) ? '' : when(start, zone)}: `, h('span', { class: `badge ${booking.status}`, 'data-booking-state': booking.status }, String(booking.status))));
    const payAction = (booking.actions ?? []).find((a: any) => a.status === 'pending' && a.type === 'payment' && typeof a.continue_url === 'string');
    if (payAction) parts.push(h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'button', 'data-action': 'pay', onclick: () => void pay(payAction.continue_url) }, 'Pay to confirm')));
  }
  if (note) parts.push(note);
  mount(h('main', {}, ...parts));
}

render();
void bridge.connect().then(render, (e) => mount(h('main', {}, status(`Could not reach the host: ${(e as Error).message}`, 'error'))));
