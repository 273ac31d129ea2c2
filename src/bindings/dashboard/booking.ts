/**
 * The booking screen: its detail and event history, the moves its state allows (confirm, decline,
 * complete, no-show, cancel, refund) and a reschedule form over the free slots; and the POSTs of
 * those moves, each one admin operation.
 */
import { html, readForm, type Html } from '../../web/index.js';
import type { DashboardAction } from '../../operations/index.js';
import type { DoneCode } from './flash.js';
import {
  badge,
  buyerName,
  stamp,
  middayOf,
  refusal,
  type DashboardApp,
  type Screens,
  type ScreenContext,
} from './kit.js';
import { minorFromForm, moneyCard } from './money.js';
import { messagesCard } from './booking-messages.js';
import { bookingPeople } from './booking-people.js';
import { viewOf, type BookingDetailView, type BookingView, type FreeSlotView } from './views.js';

const MOVABLE = ['pending', 'requires_action', 'confirmed'];

const MOVES: Record<string, { action: DashboardAction; done: DoneCode }> = {
  confirm: { action: 'confirm', done: 'confirmed' },
  decline: { action: 'decline', done: 'declined' },
  refund: { action: 'refund', done: 'refunded' },
  cancel: { action: 'cancel', done: 'canceled' },
  complete: { action: 'complete', done: 'completed' },
  no_show: { action: 'no_show', done: 'no_show' },
  reschedule: { action: 'reschedule', done: 'rescheduled' },
};

/**
 * Reschedule: a date and a staff member (the booking's own by default), then that day's free
 * slots of the booking's service for its party (the availability operation, as the business),
 * each a radio button; the reschedule operation re-checks the chosen slot and answers
 * slot_unavailable if it was taken in between.
 */
async function rescheduleCard(
  s: Screens,
  c: ScreenContext,
  b: BookingView,
  startMs: number,
  resourceIds: string[],
): Promise<Html> {
  const id = encodeURIComponent(b.id);
  const asked = c.req.query('date');
  const date = asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : s.dateKey.format(startMs);
  const staff = [...s.biz.resources.values()].filter((r) => r.type === 'staff');
  const askedStaff = c.req.query('staff');
  const who =
    askedStaff !== undefined
      ? staff.some((r) => r.id === askedStaff)
        ? askedStaff
        : ''
      : (resourceIds.find((r) => staff.some((x) => x.id === r)) ?? '');
  const input: Record<string, unknown> = {
    service_id: b.service_id,
    start_date: date,
    end_date: date,
    party_size: b.party_size,
  };
  if (who) input.resource_id = who;
  const free = await s.run(c, 'free_slots', input);
  const slots = free.ok ? viewOf<{ slots: FreeSlotView[] }>(free.data).slots.filter((x) => x.state !== 'waitlist') : [];
  const problem = !free.ok ? free.error.message : free.messages.find((m) => m.type === 'error')?.content;
  const choices = slots.map((x, i) => {
    const names = (x.resources ?? []).map((r) => r.name).join(', ');
    return html`<label><input type="radio" name="slot_id" value="${x.id}"${i === 0 ? html` required` : ''}>${s.timeFmt.format(Date.parse(x.start))}–${s.timeFmt.format(Date.parse(x.end))}${names ? html` <small>${names}</small>` : ''}</label>`;
  });
  const pick = problem
    ? refusal(problem)
    : choices.length
      ? html`<form method="post" action="/admin/ui/bookings/${id}/reschedule">${s.csrfField(c)}<fieldset class="slots"><legend>Free times on ${s.dayFmt.format(middayOf(date))}</legend>${choices}</fieldset>
<button class="primary" type="submit">Move the booking</button></form>`
      : html`<p class="note">No free time that day for this service and party; try another date.</p>`;
  return html`<section class="card" id="reschedule" aria-labelledby="rs"><h2 id="rs">Reschedule</h2>
<form class="filters" method="get" action="/admin/ui/bookings/${id}"><label>New date<input type="date" name="date" value="${date}" required></label>
<label>With<select name="staff"><option value="">Anyone</option>${staff.map((r) => html`<option value="${r.id}"${r.id === who ? html` selected` : ''}>${r.name}</option>`)}</select></label><button type="submit">Show free times</button></form>
${pick}<p class="note">Times in ${s.zone}. The booking keeps its id; the platform hears booking.rescheduled, and the service's reschedule rules (limit, fee) apply.</p></section>`;
}

export function mountBooking(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/bookings/:id', async (c) => {
    const res = await s.run(c, 'booking_detail', { booking_id: c.req.param('id') });
    if (!res.ok || res.messages.some((m) => m.type === 'error')) {
      return s.view(
        c,
        'Booking',
        '',
        html`<h1>Booking not found</h1><p>${res.ok ? res.messages[0]?.content : res.error.message}</p>`,
        404,
      );
    }
    const d = viewOf<BookingDetailView>(res.data);
    const b = d.booking;
    const id = encodeURIComponent(b.id);
    const btn = (action: string, label: string, cls = '') =>
      html`<form class="inline" method="post" action="/admin/ui/bookings/${id}/${action}">${s.csrfField(c)}<button class="${cls}" type="submit">${label}</button></form>`;
    const moves: Html[] = [];
    if (b.status === 'pending' && b.confirmation_mode === 'manual') moves.push(btn('confirm', 'Confirm', 'primary'));
    if (b.status === 'confirmed' || b.status === 'in_progress')
      moves.push(btn('complete', 'Mark completed'), btn('no_show', 'Mark no-show'));
    if (MOVABLE.includes(b.status)) moves.push(btn('cancel', 'Cancel as the business', 'danger'));
    const decline =
      b.status === 'pending'
        ? html`<form class="stack" id="decline" method="post" action="/admin/ui/bookings/${id}/decline">${s.csrfField(c)}<label>Reason for declining<input name="reason" required maxlength="1000"></label><button class="danger" type="submit">Decline</button></form>`
        : '';
    const resourceIds = d.resource_ids ?? [];
    const reschedule = MOVABLE.includes(b.status) ? await rescheduleCard(s, c, b, d.start_ms, resourceIds) : '';
    const events = d.events.map(
      (e) => html`<tr><td>${stamp(s, e.timestamp)}</td><td>${e.event}</td><td>${e.event_id}</td></tr>`,
    );
    return s.view(
      c,
      `Booking ${b.id}`,
      '',
      html`<h1>${buyerName(b)} · ${b.service_name}</h1>${s.flash(c)}
<div class="card"><p>${badge(b.status)}</p><dl><dt>When</dt><dd>${s.when(d.start_ms)}–${s.timeFmt.format(d.end_ms)} (${s.zone})</dd>
<dt>Staff</dt><dd>${resourceIds.map(s.resourceName).join(', ') || '—'}</dd>
${bookingPeople(b)}
<dt>Party</dt><dd>${b.party_size}</dd><dt>Booking id</dt><dd>${b.id}</dd><dt>Platform</dt><dd>${d.platform ?? 'direct'}</dd>
${b.cancellation ? html`<dt>Canceled</dt><dd>by ${b.cancellation.canceled_by}${b.cancellation.reason ? `: ${b.cancellation.reason}` : ''}</dd>` : ''}</dl>
<div class="actions">${moves}</div>${decline}</div>${moneyCard(d.money, { csrf: s.csrfField(c), action: `/admin/ui/bookings/${id}/refund` })}${reschedule}${messagesCard(d.messages, (iso) => s.when(Date.parse(iso)), s.zone)}
<section class="card" aria-labelledby="h"><h2 id="h">History</h2><table class="list"><thead><tr><th>At (${s.zone})</th><th>Event</th><th>Event id</th></tr></thead><tbody>${events.length ? events : html`<tr><td colspan="3">No events yet.</td></tr>`}</tbody></table></section>`,
    );
  });

  app.post('/admin/ui/bookings/:id/:move', async (c) => {
    const name = c.req.param('move');
    const move = Object.hasOwn(MOVES, name) ? MOVES[name] : undefined;
    const id = c.req.param('id');
    if (!move) return s.view(c, 'Not found', '', html`<h1>Not found</h1>`, 404);
    const form = await readForm(c);
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const input: Record<string, unknown> = { booking_id: id };
    if (text(form.reason)) input.reason = form.reason;
    if (move.action === 'decline') input.reason = text(form.reason);
    if (move.action === 'refund') {
      const amount = minorFromForm(form.amount, s.currency);
      if (typeof amount === 'object')
        return s.refuse(c, `/admin/ui/bookings/${encodeURIComponent(id)}`, amount.refused);
      Object.assign(input, { reason: text(form.reason), amount });
    }
    if (move.action === 'reschedule') input.slot_id = text(form.slot_id);
    return s.back(c, `/admin/ui/bookings/${encodeURIComponent(id)}`, await s.run(c, move.action, input), move.done);
  });
}
