/**
 * The booking card (hold, create, get, reschedule, cancel, and an accepted waitlist offer): what,
 * when, where with the address, with whom, the price and what is due, the terms in words, the exact
 * state, the hold's or payment's deadline counting down, and the payment button that opens the
 * business's continue_url through the host (ui/open-link).
 */
import { HostBridge, type ToolResult } from './bridge.js';
import { countdown, h, mount, personZone, status, when } from './dom.js';
import { failure, openPayment, serverClock, viewData, type ViewData } from './shared.js';

let result: ToolResult | null = null;
let data: ViewData | undefined;
let now = serverClock(undefined);
let note: HTMLElement | null = null;
let timer: number | undefined;

const STATE_WORDS: Record<string, string> = {
  requires_action: 'Not confirmed: waiting for payment',
  pending: 'Waiting for the business to confirm',
  confirmed: 'Confirmed',
  canceled: 'Canceled',
  completed: 'Completed',
  no_show: 'Marked as a no-show',
  in_progress: 'In progress',
  active: 'Held, not booked yet',
  released: 'Hold released',
  expired: 'Expired',
  converted: 'Booked from this hold',
};

const bridge = new HostBridge('usp-booking-card', {
  onResult(r) {
    result = r;
    data = viewData(r);
    now = serverClock(data);
    note = null;
    render();
  },
  onContext() {
    render();
  },
});

function row(term: string, ...value: Array<Node | string | null>): Node[] {
  return [h('dt', {}, term), h('dd', {}, ...value.filter((v): v is Node | string => v !== null))];
}

async function pay(url: string): Promise<void> {
  note = await openPayment(bridge, url);
  render();
}

function render(): void {
  if (timer !== undefined) clearTimeout(timer);
  if (!result) return mount(h('main', {}, status('Waiting for the booking…')));
  const err = failure(result);
  const sc = result.structuredContent ?? {};
  const b = sc.booking;
  const hold = sc.hold;
  if (!b && !hold) return mount(h('main', {}, status(err ?? 'Nothing to show.', err ? 'error' : 'info')));
  const zone = personZone(bridge.context.timeZone);
  const bizZone = data?.zone ?? zone;
  const rec = b ?? hold;
  const state = String(rec.status);
  const dl: Node[] = [];
  const start = Date.parse(b?.slot?.start ?? data?.start ?? '');
  if (!Number.isNaN(start)) {
    dl.push(...row('When', when(start, zone), bizZone !== zone ? h('span', { class: 'sub' }, ` (${when(start, bizZone)} business time)`) : null));
  }
  if (data?.place) dl.push(...row('Where', data.place.name, data.place.address ? h('span', { class: 'sub' }, `, ${data.place.address}`) : null));
  const who = (b?.resources ?? []).filter((r: any) => r.type === 'staff' || !r.type).map((r: any) => r.name ?? r.id);
  if (who.length) dl.push(...row('With', who.join(', ')));
  if (b?.party_size > 1) dl.push(...row('Party', String(b.party_size)));
  if (data?.price) dl.push(...row('Price', data.price, data.payment ? h('span', { class: 'sub' }, ` · ${data.payment}`) : null));
  if (data?.due) dl.push(...row('Due now', data.due));
  if (data?.cancellation) dl.push(...row('Fee', data.cancellation.fee), ...row('Refund', data.cancellation.refund));

  const payAction = (b?.actions ?? []).find((a: any) => a.status === 'pending' && a.type === 'payment' && typeof a.continue_url === 'string');
  const deadline = hold?.status === 'active' ? hold.expires_at : payAction?.expires_at ?? (b?.status === 'pending' ? b.expires_at : undefined);
  let live: HTMLElement | null = null;
  if (deadline) {
    const left = countdown(Date.parse(deadline), now());
    const what = hold ? 'The hold ends' : payAction ? 'Pay before' : 'The business answers by';
    live = h('p', {}, `${what} ${when(Date.parse(deadline), zone)}: `, h('span', { class: 'countdown', 'data-countdown': '' }, left ? `${left} left` : 'the time is up'));
    if (left) timer = window.setTimeout(render, 1000);
  }
  const terms = data?.terms?.length ? [h('h2', {}, 'Terms'), h('ul', { class: 'terms' }, ...data.terms.map((t) => h('li', {}, t)))] : [];
  const actions = payAction
    ? h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'button', 'data-action': 'pay', onclick: () => void pay(payAction.continue_url) }, `Pay ${data?.due ?? ''}`.trim()))
    : null;
  mount(
    h(
      'main',
      {},
      h('h1', {}, b?.service_name ?? data?.service ?? 'Hold'),
      h('p', { class: 'sub' }, data?.business ?? ''),
      h('p', {}, h('span', { class: `badge ${state}`, 'data-state': state }, STATE_WORDS[state] ?? state)),
      h('dl', {}, ...dl),
      live,
      ...terms,
      actions ?? '',
      err ? status(err, 'error') : '',
      note ?? '',
    ),
  );
}

render();
void bridge.connect().then(render, (e) => mount(h('main', {}, status(`Could not reach the host: ${(e as Error).message}`, 'error'))));
