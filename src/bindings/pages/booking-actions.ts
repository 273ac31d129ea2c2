/**
 * The buyer helps herself: behind the booking link of every mail (which carries the booking's own
 * credential), the booking page offers to cancel or move the booking. Each step presents that
 * credential to the tools' operations through the pipeline: quote_booking_change says what the
 * change costs before she confirms, query_availability lists the next free times of the same
 * service, and cancel_booking / reschedule_booking do it under the business's policy. The page
 * holds no policy of its own, and can do nothing the booking's credential could not. A GET changes
 * nothing (mail scanners follow links); the confirm buttons post a CSRF-checked form.
 */
import type { Context, Hono } from 'hono';
import {
  operationForPage,
  type BookingPageView,
  type OperationResponse,
  type Pipeline,
  type ScopeResolver,
} from '../../operations/index.js';
import { REST_ERRORS, csrfFor, csrfOk, errorCard, html, isHttps, readForm, type Html } from '../../web/index.js';
import { negotiateLocale, page, Words, zoneWords } from './page-kit.js';
import { asEntry, TOKEN } from './waitlist-offer.js';

interface Quote {
  allowed: boolean;
  summary: string;
  quoted_at: string;
  fee: number;
  /** Until when the change is free (only while it still is). */
  free_until?: string;
  /** When cancelling closes (no_cancellation_after before the start). */
  closes_at?: string;
}
interface Slot {
  id: string;
  start: string;
  end: string;
}

/** The quote's deadlines in the business's zone, the zone named ("Thu, Dec 3, 10:00 AM, New York time"). */
function deadlines(quote: Quote, w: Words, change: 'cancel' | 'move'): Html | '' {
  const at = (iso: string) => `${w.time(iso)}, ${zoneWords(w.zone)}`;
  const free = quote.free_until ? html`<li>Free to ${change} until ${at(quote.free_until)}.</li>` : '';
  const closes = quote.closes_at ? html`<li>Cancelling is not possible after ${at(quote.closes_at)}.</li>` : '';
  return free || closes ? html`<ul class="deadlines">${free}${closes}</ul>` : '';
}

/** How many days of free times the move form lists. */
const MOVE_DAYS = 7;
/** At most this many times a day, so a phone screen stays short. */
const TIMES_A_DAY = 12;

const bookingHref = (id: string, token: string) => `/booking/${encodeURIComponent(id)}?token=${token}`;

/**
 * The two links on the booking page for a visitor holding the booking's credential, only while the
 * booking can still change and the credential opens it (the cancel quote, read with it, says so).
 */
export async function actionsCard(
  pipeline: Pipeline,
  scopeOf: ScopeResolver,
  c: Context,
  b: BookingPageView,
  token: string,
): Promise<Html | ''> {
  if (!TOKEN.test(token) || !['confirmed', 'pending', 'requires_action'].includes(b.status)) return '';
  const q = await pipeline.execute(
    operationForPage('booking_quote'),
    { input: { booking_id: b.booking_id, change: 'cancel' }, ...asEntry(c, token) },
    scopeOf(c.req.raw),
  );
  if (!q.ok) return '';
  const id = encodeURIComponent(b.booking_id);
  return html`<section class="card" aria-labelledby="change"><h2 id="change">Change your booking</h2><p>${(q.data.quote as Quote).summary} You see what a change costs before you confirm it.</p>
<p class="actions"><a class="button secondary" href="/booking/${id}/move?token=${token}">Move to another time</a> <a class="button secondary" href="/booking/${id}/cancel?token=${token}">Cancel this booking</a></p></section>`;
}

/** The business's phone and email, as the business file gives them. */
export function contactCard(b: BookingPageView): Html | '' {
  const c = b.contact;
  if (!c) return '';
  const phone = c.phone
    ? html`<dt>Phone</dt><dd><a href="tel:${c.phone.replace(/[^+\d]/g, '')}">${c.phone}</a></dd>`
    : '';
  const email = c.email ? html`<dt>Email</dt><dd><a href="mailto:${c.email}">${c.email}</a></dd>` : '';
  return html`<section class="card" aria-labelledby="contact"><h2 id="contact">Contact ${b.business_name}</h2><dl>${phone}${email}</dl></section>`;
}

const linkDead = (status = 403) =>
  page(
    'Link no longer works',
    errorCard({
      heading: 'This link cannot change the booking',
      text: 'Open the link in your latest mail about this booking, or contact the business.',
    }),
    status,
  );

/** A refusal in words, with the way back to the booking so the page stays usable. */
function refused(heading: string, id: string, token: string, status: number): Response {
  return page(
    'Not possible',
    errorCard({
      heading,
      text: html`Nothing was changed. <a href="${bookingHref(id, token)}">Back to your booking</a>`,
    }),
    status,
  );
}

function failed(res: Extract<OperationResponse, { ok: false }>, id: string, token: string): Response {
  const status = REST_ERRORS[res.error.code].status;
  if (res.error.code === 'authentication_required' || status === 401 || status === 403 || status === 404)
    return linkDead(status);
  return refused(res.error.message, id, token, status);
}

/** An error message in a business outcome (outside the policy, the time taken): its words. */
const problemOf = (res: Extract<OperationResponse, { ok: true }>) => res.messages.find((m) => m.type === 'error');

function withCsrf(c: Context, make: (csrf: string) => Response): Response {
  const csrf = csrfFor(c, { secure: isHttps(c) });
  const r = make(csrf.token);
  if (csrf.setCookie) r.headers.append('Set-Cookie', csrf.setCookie);
  return r;
}

function slotPicker(slots: Slot[], w: Words): Html {
  const days = new Map<string, Slot[]>();
  // One formatter each for the page, not one per slot (building one costs as much as many formats).
  const dayOf = new Intl.DateTimeFormat(w.locale, { timeZone: w.zone, weekday: 'long', day: 'numeric', month: 'long' });
  for (const s of slots) {
    const day = dayOf.format(new Date(s.start));
    const list = days.get(day) ?? [];
    if (list.length < TIMES_A_DAY) list.push(s);
    days.set(day, list);
  }
  const time = new Intl.DateTimeFormat(w.locale, { timeZone: w.zone, hour: 'numeric', minute: '2-digit' });
  return html`${[...days].map(
    ([day, list]) =>
      html`<fieldset class="day"><legend>${day}</legend>${list.map((s) => html`<label class="slot"><input type="radio" name="slot_id" value="${s.id}" required> ${time.format(new Date(s.start))}</label>`)}</fieldset>`,
  )}`;
}

export function registerBookingActions(app: Hono, pipeline: Pipeline, scopeOf: ScopeResolver): void {
  const words = (c: Context, b: { locale: string; zone: string }) =>
    new Words(negotiateLocale(c.req.header('accept-language'), b.locale), b.zone);
  const run = (
    c: Context,
    which: 'booking_quote' | 'booking_cancel' | 'booking_move',
    input: Record<string, unknown>,
    token: string,
  ) => pipeline.execute(operationForPage(which), { input, ...asEntry(c, token) }, scopeOf(c.req.raw));

  /** The booking and the quote for a change, both read with the booking's credential. */
  const load = async (c: Context, change: 'cancel' | 'reschedule') => {
    const id = c.req.param('booking_id')!;
    const token = c.req.query('token') ?? '';
    if (!TOKEN.test(token)) return { done: linkDead() };
    const q = await run(c, 'booking_quote', { booking_id: id, change }, token);
    if (!q.ok) return { done: failed(q, id, token) };
    // The page view and the free times are public reads: they take no credential (one names a resource they do not have).
    const v = await pipeline.execute(
      operationForPage('booking_page'),
      { input: { booking_id: id } },
      scopeOf(c.req.raw),
    );
    if (!v.ok) return { done: failed(v, id, token) };
    return { id, token, quote: q.data.quote as Quote, b: v.data.booking_page as BookingPageView };
  };

  app.get('/booking/:booking_id/cancel', async (c) => {
    const r = await load(c, 'cancel');
    if ('done' in r) return r.done;
    const { id, token, quote, b } = r;
    const w = words(c, b);
    const what = html`<p class="biz">${b.business_name}</p><h1 id="what">Cancel ${b.service_name}?</h1><p>${w.when(b.start_at, b.end_at)}, ${zoneWords(b.zone)}</p>`;
    if (!quote.allowed) return refused(quote.summary, id, token, 409);
    return withCsrf(c, (csrf) =>
      page(
        `Cancel ${b.service_name}`,
        html`<section class="card" aria-labelledby="what">${what}<p class="due">${quote.summary}</p>${deadlines(quote, w, 'cancel')}
<form class="confirm" method="post" action="/booking/${encodeURIComponent(id)}/cancel"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="token" value="${token}"><button class="primary" type="submit">Yes, cancel my booking</button><a class="button secondary" href="${bookingHref(id, token)}">Keep my booking</a></form></section>`,
      ),
    );
  });

  /**
   * A confirm form's post: CSRF and the credential checked, the operation run with that credential,
   * its refusal said in words; `done` answers a change that went through.
   */
  const confirmed = async (
    c: Context,
    which: 'booking_cancel' | 'booking_move',
    input: (form: Record<string, unknown>) => Record<string, unknown> | string,
    fallback: string,
    done: (res: Extract<OperationResponse, { ok: true }>, id: string, token: string) => Response,
  ): Promise<Response> => {
    const form = await readForm(c);
    const id = c.req.param('booking_id')!;
    const token = typeof form.token === 'string' && TOKEN.test(form.token) ? form.token : '';
    if (!csrfOk(c, form.csrf)) return expired(id, token);
    if (!token) return linkDead();
    const args = input(form);
    if (typeof args === 'string') return refused(args, id, token, 422);
    const res = await run(c, which, { booking_id: id, ...args }, token);
    if (!res.ok) return failed(res, id, token);
    const problem = problemOf(res);
    if (problem) return refused(problem.content ?? fallback, id, token, 409);
    return done(res, id, token);
  };

  app.post('/booking/:booking_id/cancel', (c) =>
    confirmed(
      c,
      'booking_cancel',
      () => ({}),
      'The booking could not be canceled.',
      (res, id, token) => {
        const note = res.messages.find((m) => m.type === 'warning')?.content;
        return page(
          'Booking canceled',
          html`<section class="card" role="status"><h1>Your booking is canceled</h1>${note ? html`<p>${note}</p>` : html`<p>Nothing was charged for cancelling.</p>`}<p><a href="${bookingHref(id, token)}">See your booking</a></p></section>`,
        );
      },
    ),
  );

  app.get('/booking/:booking_id/move', async (c) => {
    const r = await load(c, 'reschedule');
    if ('done' in r) return r.done;
    const { id, token, quote, b } = r;
    if (!quote.allowed) return refused(quote.summary, id, token, 409);
    const from = Date.parse(quote.quoted_at);
    const q = await pipeline.execute(
      operationForPage('booking_slots'),
      {
        input: {
          service_id: b.service_id,
          start_date: quote.quoted_at,
          end_date: new Date(from + MOVE_DAYS * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          limit: 200,
        },
      },
      scopeOf(c.req.raw),
    );
    if (!q.ok) return failed(q, id, token);
    const slots = (q.data.slots as Slot[]).filter((s) => Date.parse(s.start) !== Date.parse(b.start_at));
    const w = words(c, b);
    const picker = slots.length
      ? html`${slotPicker(slots, w)}<button class="primary" type="submit">Move my booking</button>`
      : html`<p>No free time in the next ${MOVE_DAYS} days. Contact the business, or try again later.</p>`;
    return withCsrf(c, (csrf) =>
      page(
        `Move ${b.service_name}`,
        html`<section class="card" aria-labelledby="what"><p class="biz">${b.business_name}</p><h1 id="what">Move ${b.service_name}</h1><p>Now: ${w.when(b.start_at, b.end_at)}, ${zoneWords(b.zone)}</p><p class="due">${quote.summary}</p>${deadlines(quote, w, 'move')}</section>
<section class="card" aria-labelledby="times"><h2 id="times">Choose a new time</h2><p class="note">Times in ${zoneWords(b.zone)}.</p><form method="post" action="/booking/${encodeURIComponent(id)}/move" class="move"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="token" value="${token}">${picker}</form><p><a href="${bookingHref(id, token)}">Keep the current time</a></p></section>`,
      ),
    );
  });

  app.post('/booking/:booking_id/move', (c) =>
    confirmed(
      c,
      'booking_move',
      (form) =>
        typeof form.slot_id === 'string' && form.slot_id ? { slot_id: form.slot_id } : 'Choose a new time first.',
      'The booking could not be moved.',
      (_res, id, token) => c.redirect(bookingHref(id, token), 303),
    ),
  );
}

function expired(id: string, token: string): Response {
  const again = token
    ? html`<a href="${bookingHref(id, token)}">Open your booking again</a>; nothing was changed.`
    : 'Nothing was changed.';
  return page('Form expired', errorCard({ heading: 'This form has expired', text: again }), 403);
}
