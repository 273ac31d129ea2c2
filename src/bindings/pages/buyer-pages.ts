/**
 * The buyer's pages as a browser sees them: the checkout behind a payment action's continue_url
 * (spec 8.5.5), its paid / abandoned / expired answers, the read-only booking page it leads to and
 * the booking's calendar file. HTML rendered from the view_checkout, complete_checkout,
 * view_booking_page and booking_calendar operations; no script, nothing from another origin, a
 * strict Content-Security-Policy, and dates and money formatted in the buyer's language
 * (Accept-Language, else the business's locale).
 */
import { Hono, type Context } from 'hono';
import {
  operationForPage,
  type BookingPageView,
  type CheckoutView,
  type Pipeline,
  type ProtocolError,
  type ScopeResolver,
} from '../../operations/index.js';
import { registerCalendarFeeds } from './calendar-feeds.js';
import { isOfferPageRequest, registerWaitlistOffer } from './waitlist-offer.js';
import { actionsCard, contactCard, registerBookingActions } from './booking-actions.js';
import { CSS, negotiateLocale, page, PAGES_CSS_PATH, Words, zoneWords } from './page-kit.js';
import {
  REST_ERRORS,
  contentSecurityPolicy,
  csrfFor,
  csrfOk,
  errorCard,
  html,
  isHttps,
  problemResponse,
  readForm,
  styleSheet,
  type Html,
} from '../../web/index.js';

/** The buyer's language for a page: Accept-Language, else the business's locale (shared with the mail's choice). */
export { negotiateLocale };

function stateBadge(b: BookingPageView, w: Words): Html {
  switch (b.status) {
    case 'confirmed':
      return html`<p class="state ok">Confirmed</p>`;
    case 'pending':
      return html`<p class="state wait">Waiting for ${b.business_name} to confirm${b.deadline_at ? html` (answer by ${w.time(b.deadline_at)})` : ''}</p>`;
    case 'requires_action':
      return html`<p class="state wait">Payment needed${b.deadline_at ? html` by ${w.time(b.deadline_at)}` : ''}</p>`;
    case 'in_progress':
      return html`<p class="state ok">In progress</p>`;
    case 'completed':
      return html`<p class="state ok">Completed</p>`;
    case 'no_show':
      return html`<p class="state bad">Marked as missed</p>`;
    case 'canceled':
      return html`<p class="state bad">Canceled</p>`;
    default:
      return html`<p class="state wait">${b.status}</p>`;
  }
}

/** What was bought, from whom, where, when, on what terms and in what state. */
function bookingCard(b: BookingPageView, w: Words): Html {
  const staff = b.resources.filter((r) => r.type === 'staff').map((r) => r.name);
  const other = b.resources.filter((r) => r.type !== 'staff').map((r) => r.name);
  const where = b.location
    ? html`<dt>Where</dt><dd>${b.location.name}${b.location.address ? html`<br>${b.location.address}` : ''}${b.location.map_url ? html`<br><a href="${b.location.map_url}" rel="noopener noreferrer">Open in a map</a>` : ''}</dd>`
    : '';
  return html`<section class="card" aria-labelledby="what"><p class="biz">${b.business_name}</p><h1 id="what">${b.service_name}</h1>${stateBadge(b, w)}<dl>${html`<dt>When</dt><dd>${w.when(b.start_at, b.end_at)}<br>${zoneWords(b.zone)} · ${w.minutes(b.duration_minutes)}</dd>`}${where}${staff.length ? html`<dt>With</dt><dd>${staff.join(', ')}</dd>` : ''}${other.length ? html`<dt>Room and equipment</dt><dd>${other.join(', ')}</dd>` : ''}${html`<dt>Booking reference</dt><dd>${b.booking_id}</dd></dl>`}${b.calendar_path ? html`<p><a class="button secondary" href="${b.calendar_path}" download>${b.status === 'canceled' ? 'Remove from calendar (.ics)' : 'Add to calendar (.ics)'}</a></p>` : ''}</section>`;
}

function priceCard(b: BookingPageView, w: Words): Html {
  const p = b.price;
  const m = (n: number) => w.money(n, p.currency);
  if (p.total === 0 && !p.cancellation_fee)
    return html`<section class="card" aria-labelledby="price"><h2 id="price">Price</h2><p>Free</p></section>`;
  const rows: Html[] = [html`<tr><td>${b.service_name}</td><td>${m(p.total)}</td></tr>`];
  if (p.deposit) rows.push(html`<tr><td>Deposit</td><td>${m(p.deposit)}</td></tr>`);
  if (p.paid) rows.push(html`<tr><td>Paid</td><td>${m(p.paid)}</td></tr>`);
  if (p.cancellation_fee) rows.push(html`<tr><td>Cancellation fee</td><td>${m(p.cancellation_fee)}</td></tr>`);
  if (p.refund) rows.push(html`<tr><td>Refund</td><td>${m(p.refund)}</td></tr>`);
  if (p.due_now) rows.push(html`<tr class="total"><td>Due now</td><td>${m(p.due_now)}</td></tr>`);
  if (p.at_appointment)
    rows.push(html`<tr class="total"><td>To pay at the appointment</td><td>${m(p.at_appointment)}</td></tr>`);
  if (p.owed) rows.push(html`<tr class="total"><td>Still to pay</td><td>${m(p.owed)}</td></tr>`);
  if (b.status !== 'canceled' && p.balance === 0)
    rows.push(html`<tr class="total"><td>Still to pay</td><td>${m(0)}</td></tr>`);
  return html`<section class="card" aria-labelledby="price"><h2 id="price">Price</h2><table>${rows}</table><p class="note">No other fees.</p></section>`;
}

function termsCard(b: BookingPageView): Html | '' {
  if (!b.terms.length) return '';
  return html`<section class="card" aria-labelledby="terms"><h2 id="terms">Cancelling and rescheduling</h2><ul>${b.terms.map((t) => html`<li>${t}</li>`)}</ul></section>`;
}

function bookingPage(b: BookingPageView, w: Words, lead: Html | '' = ''): Html {
  return html`${lead}${bookingCard(b, w)}${priceCard(b, w)}${termsCard(b)}`;
}

function render(v: CheckoutView, w: Words, csrf: string, abandoned = false): Response {
  const b = v.booking;
  const back = html`<p><a href="${b.booking_path}">See your booking</a></p>`;
  switch (v.state) {
    case 'due': {
      const lead = abandoned
        ? html`<section class="card" role="status"><h2>Payment not made</h2><p>You left the payment. The time is kept for you until ${w.time(b.deadline_at ?? '')}; pay below before then, or it is released.</p></section>`
        : '';
      const pay = v.sandbox
        ? html`<form method="post"><input type="hidden" name="csrf" value="${csrf}"><button class="primary" name="choice" value="pay">Pay ${v.amount_due ?? ''}</button><button class="secondary" name="choice" value="cancel">Not now</button></form><p class="note">Sandbox business: no money moves.</p>`
        : v.pay_url
          ? html`<p><a class="button primary" href="${v.pay_url}">Pay ${v.amount_due ?? ''}</a></p><p class="note">You pay on the payment provider's secure page and come back here.</p>`
          : v.provider === 'provider'
            ? html`<p class="note">The payment page is being prepared; reload this page in a moment.</p>`
            : html`<p class="note">This business takes payment through its payment provider.</p>`;
      const due = html`<section class="card" aria-labelledby="pay"><h2 id="pay">Payment</h2><p class="due">${v.amount_due ?? ''} due now</p><p>Pay before ${w.time(b.deadline_at ?? '')}, or the booking is released.</p>${pay}</section>`;
      return page(
        abandoned ? 'Payment not made' : `Pay for ${b.service_name}`,
        html`${lead}${bookingCard(b, w)}${due}${priceCard(b, w)}${termsCard(b)}`,
      );
    }
    case 'paid':
      return page(
        `Paid: ${b.service_name}`,
        bookingPage(
          b,
          w,
          html`<section class="card" role="status"><h2>Payment received</h2><p>Thank you. Your booking is below; this page always shows its current state.</p></section>`,
        ),
      );
    case 'expired':
      // Spec 8.5.5: after expiry an explicit page, never a broken link.
      return page(
        'Payment link expired',
        html`<section class="card" role="status"><h1>This payment link has expired</h1><p>The time was released and nothing was charged. Ask your assistant to book again.</p></section>${bookingCard(b, w)}`,
        410,
      );
    default:
      return page(
        `Nothing to pay: ${b.service_name}`,
        html`${bookingPage(b, w, html`<section class="card" role="status"><h2>Nothing to pay</h2><p>There is nothing to pay for this booking now.</p></section>`)}${back}`,
      );
  }
}

function notFound(status: number): Response {
  return page(
    'Not found',
    errorCard({
      heading: 'There is nothing behind this link.',
      text: 'Check the link you were given, or ask your assistant.',
    }),
    status,
  );
}

const wantsHtml = (req: Request) => (req.headers.get('accept') ?? '').includes('text/html');
const CHECKOUT = /^\/checkout\/[^/]+$/;
const RETURN = /^\/checkout\/[^/]+\/return$/;
const BOOKING = /^\/booking\/[^/]+$/;
const CALENDAR = /^\/booking\/[^/]+\/calendar\.ics$/;
const REMINDERS = /^\/booking\/[^/]+\/reminders$/;
const CHANGE = /^\/booking\/[^/]+\/(cancel|move)$/;
const CALENDAR_FEED = /^\/calendars\/[^/]+\.ics$/;

/**
 * Whether a request is the pages' rather than REST's: the pages share the checkout and booking
 * paths with their operations' REST routes, and answer browsers (Accept: text/html, form posts);
 * programs get JSON from REST. The calendar file and the style sheet are the pages' for everyone.
 */
export function isPageRequest(req: Request, path: string): boolean {
  if (isOfferPageRequest(req, path)) return true;
  if (req.method === 'GET') {
    if (path === PAGES_CSS_PATH || CALENDAR.test(path) || CALENDAR_FEED.test(path) || RETURN.test(path)) return true;
    return (CHECKOUT.test(path) || BOOKING.test(path) || REMINDERS.test(path) || CHANGE.test(path)) && wantsHtml(req);
  }
  const type = req.headers.get('content-type') ?? '';
  return (
    req.method === 'POST' &&
    (CHECKOUT.test(path) || REMINDERS.test(path) || CHANGE.test(path)) &&
    (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data'))
  );
}

/** How the pages, and the host on their behalf, say no: a page with the reason. */
export function pageRefusal(status: number, err: ProtocolError): Response {
  return page('Not possible', errorCard({ heading: err.message }), status);
}

/** The buyer's pages as a door of their own; the host routes to it what isPageRequest() claims. */
/** `scopeOf`: the business a request is for; every page is that business's. */
export function createBuyerPages(pipeline: Pipeline, scopeOf: ScopeResolver): Hono {
  const app = new Hono();
  // A form that cannot be read (or any fault) goes to the host, which answers with pageRefusal() and logs it.
  app.onError((err) => {
    throw err;
  });
  const browser = (c: Context) => wantsHtml(c.req.raw);
  const words = (c: Context, b: { locale: string; zone: string }) =>
    new Words(negotiateLocale(c.req.header('accept-language'), b.locale), b.zone);

  app.get(PAGES_CSS_PATH, () => styleSheet(CSS));

  app.get('/checkout/:booking_id', async (c) => {
    const res = await pipeline.execute(
      operationForPage('checkout'),
      { input: { booking_id: c.req.param('booking_id') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return notFound(REST_ERRORS[res.error.code].status);
    const v = res.data.checkout as CheckoutView;
    const csrf = csrfFor(c, { secure: isHttps(c) });
    const r = render(v, words(c, v.booking), csrf.token);
    if (csrf.setCookie) r.headers.append('Set-Cookie', csrf.setCookie);
    // The sandbox form posts here and is then sent on to the platform's return URL.
    return v.return_url && v.state === 'due' ? withFormTarget(r, v.return_url) : r;
  });
  // Back from the provider's page (paid or not): on to the platform's return URL when it gave one
  // (spec 8.5.5), else to the booking's own page or, still unpaid, its checkout.
  app.get('/checkout/:booking_id/return', async (c) => {
    const res = await pipeline.execute(
      operationForPage('checkout'),
      { input: { booking_id: c.req.param('booking_id') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return notFound(REST_ERRORS[res.error.code].status);
    const v = res.data.checkout as CheckoutView;
    if (v.return_url) return c.redirect(v.return_url, 303);
    return c.redirect(
      v.state === 'due' && c.req.query('result') !== 'paid'
        ? `/checkout/${encodeURIComponent(v.booking_id)}`
        : v.booking.booking_path,
      303,
    );
  });
  app.post('/checkout/:booking_id', async (c) => {
    const form = await readForm(c);
    // Paying or abandoning is the buyer's own click on our page: a post from elsewhere changes nothing.
    if (!csrfOk(c, form.csrf)) {
      const again = html`<a href="/checkout/${encodeURIComponent(c.req.param('booking_id'))}">Open the payment page again</a>; nothing was paid or canceled.`;
      return page('Payment form expired', errorCard({ heading: 'This payment form has expired', text: again }), 403);
    }
    const choice = form.choice === 'cancel' ? 'cancel' : 'pay';
    const res = await pipeline.execute(
      operationForPage('checkout_form'),
      { input: { booking_id: c.req.param('booking_id'), choice } },
      scopeOf(c.req.raw),
    );
    if (!res.ok)
      return page(
        'Payment not possible',
        errorCard({ heading: res.error.message }),
        REST_ERRORS[res.error.code].status,
      );
    const v = res.data.checkout as CheckoutView;
    // Paid, failed, or abandoned: back to the platform when it asked (spec 8.5.5).
    if (v.return_url) return c.redirect(v.return_url, 303);
    // Paid: on to the booking page, which follows the booking from now on.
    if (v.state === 'paid') return c.redirect(v.booking.booking_path, 303);
    return render(
      v,
      words(c, v.booking),
      csrfFor(c, { secure: isHttps(c) }).token,
      choice === 'cancel' && v.state === 'due',
    );
  });

  app.get('/booking/:booking_id', async (c) => {
    const res = await pipeline.execute(
      operationForPage('booking_page'),
      { input: { booking_id: c.req.param('booking_id') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return notFound(REST_ERRORS[res.error.code].status);
    const b = res.data.booking_page as BookingPageView;
    const w = words(c, b);
    const lead =
      b.status === 'requires_action'
        ? html`<section class="card" role="status"><h2>Payment needed</h2><p><a href="/checkout/${encodeURIComponent(b.booking_id)}">Pay now</a> to keep this booking.</p></section>`
        : '';
    // The mail's link carries the booking's own credential: with it, the page offers to cancel or move.
    return page(
      `${b.service_name}: ${b.business_name}`,
      html`${bookingPage(b, w, lead)}${await actionsCard(pipeline, scopeOf, c, b, c.req.query('token') ?? '')}${contactCard(b)}`,
    );
  });
  // The link in a reminder opens a page with one button: a GET never changes anything (mail scanners follow links).
  app.get('/booking/:booking_id/reminders', (c) => {
    const csrf = csrfFor(c, { secure: isHttps(c) });
    const id = encodeURIComponent(c.req.param('booking_id'));
    const r = page(
      'Stop reminders',
      html`<section class="card"><h1>Stop reminders for this booking?</h1><p>You will still get confirmations and any change to the booking.</p>
<form method="post" action="/booking/${id}/reminders"><input type="hidden" name="csrf" value="${csrf.token}"><button class="button" type="submit">Stop reminders</button></form>
<p><a href="/booking/${id}">See your booking</a></p></section>`,
    );
    if (csrf.setCookie) r.headers.append('Set-Cookie', csrf.setCookie);
    return r;
  });
  app.post('/booking/:booking_id/reminders', async (c) => {
    const form = await readForm(c);
    const id = encodeURIComponent(c.req.param('booking_id'));
    if (!csrfOk(c, form.csrf))
      return page(
        'Form expired',
        errorCard({
          heading: 'This form has expired',
          text: html`<a href="/booking/${id}/reminders">Open it again</a>; nothing was changed.`,
        }),
        403,
      );
    const res = await pipeline.execute(
      operationForPage('reminders_form'),
      { input: { booking_id: c.req.param('booking_id') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return notFound(REST_ERRORS[res.error.code].status);
    return page(
      'Reminders stopped',
      html`<section class="card" role="status"><h1>Reminders stopped</h1><p>No more reminders for this booking.</p><p><a href="/booking/${id}">See your booking</a></p></section>`,
    );
  });
  app.get('/booking/:booking_id/calendar.ics', async (c) => {
    const res = await pipeline.execute(
      operationForPage('calendar_file'),
      { input: { booking_id: c.req.param('booking_id') } },
      scopeOf(c.req.raw),
    );
    if (!res.ok) {
      // A program downloading the file gets the problem document its operation's REST route gives.
      if (!browser(c)) return problemResponse(c.req.path, res.error);
      return page(
        'No calendar entry yet',
        errorCard({ heading: res.error.message }),
        REST_ERRORS[res.error.code].status,
      );
    }
    return new Response(res.data.calendar as string, {
      headers: {
        'Content-Type': 'text/calendar; charset=utf-8',
        'Content-Disposition': `attachment; filename="${res.data.filename as string}"`,
        'Cache-Control': 'no-store',
      },
    });
  });
  registerCalendarFeeds(app, pipeline, scopeOf);
  registerWaitlistOffer(app, pipeline, scopeOf);
  registerBookingActions(app, pipeline, scopeOf);
  app.notFound(() => notFound(404));
  return app;
}

function withFormTarget(r: Response, returnUrl: string): Response {
  const origin = new URL(returnUrl).origin;
  r.headers.set('Content-Security-Policy', contentSecurityPolicy({ formTargets: [origin] }));
  return r;
}
