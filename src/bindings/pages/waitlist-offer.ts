/**
 * The waitlist offer page, behind the link of the "a place is free" mail: the offered place (the
 * service, the time in words in the business's zone, the place, the price) and until when it is
 * kept, with Accept and Decline. The link carries the entry's own credential; the page presents it
 * to view_waitlist_offer, accept_waitlist_offer and decline_waitlist_offer (the tools' operations)
 * through the pipeline, so the page can do nothing the entry itself could not. A GET changes
 * nothing (mail scanners follow links); the buttons post a CSRF-checked form.
 */
import type { Context, Hono } from 'hono';
import {
  formatMoney,
  operationForPage,
  type OperationResponse,
  type Pipeline,
  type ScopeResolver,
  type WaitlistOfferView,
} from '../../operations/index.js';
import { REST_ERRORS, csrfFor, csrfOk, errorCard, html, isHttps, readForm, type Html } from '../../web/index.js';
import { negotiateLocale, page, Words, zoneWords } from './page-kit.js';

const OFFER = /^\/waitlist\/[^/]+\/offer$/;
export const TOKEN = /^bsc_[a-z2-7]{16,64}$/;

/** The offer page answers browsers (GET with Accept: text/html) and its own form posts; programs get REST's JSON. */
export function isOfferPageRequest(req: Request, path: string): boolean {
  if (!OFFER.test(path)) return false;
  if (req.method === 'GET') return (req.headers.get('accept') ?? '').includes('text/html');
  const type = req.headers.get('content-type') ?? '';
  return (
    req.method === 'POST' &&
    (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data'))
  );
}

/** The call as the entry (or booking) makes it: its credential on the Authorization header, the page's own origin as the profile. */
export function asEntry(c: Context, token: string) {
  const url = new URL(c.req.url);
  if (isHttps(c)) url.protocol = 'https:';
  return {
    profile: `${url.origin}/`,
    door: 'pages',
    presented: {
      binding: 'rest' as const,
      http: { method: c.req.method, url: url.toString(), headers: { authorization: `Bearer ${token}` } },
    },
  };
}

const linkDead = () =>
  page(
    'Offer no longer open',
    errorCard({
      heading: 'This offer link no longer works',
      text: 'The offer was answered already, or its time ran out and the place went to the next person waiting. Ask your assistant to join the waitlist again.',
    }),
    410,
  );

/** What a refused or failed call shows: a dead or foreign link, or the reason. */
function refusal(res: Extract<OperationResponse, { ok: false }>): Response {
  if (res.error.code === 'authentication_required') return linkDead();
  return page('Not possible', errorCard({ heading: res.error.message }), REST_ERRORS[res.error.code].status);
}

function offerCard(v: WaitlistOfferView, w: Words): Html {
  const when =
    v.start_at && v.end_at
      ? html`<dt>When</dt><dd>${w.when(v.start_at, v.end_at)}<br>${zoneWords(v.zone)}${v.duration_minutes ? html` · ${w.minutes(v.duration_minutes)}` : ''}</dd>`
      : '';
  const where = v.location
    ? html`<dt>Where</dt><dd>${v.location.name}${v.location.address ? html`<br>${v.location.address}` : ''}</dd>`
    : '';
  const price = html`<dt>Price</dt><dd>${v.price.total > 0 ? formatMoney(v.price.total, v.price.currency, w.locale) : 'Free'}</dd>`;
  return html`<section class="card" aria-labelledby="what"><p class="biz">${v.business_name}</p><h1 id="what">${v.service_name}</h1><dl>${when}${where}${price}</dl></section>`;
}

function render(v: WaitlistOfferView, w: Words, csrf: string, token: string): Response {
  switch (v.status) {
    case 'offered': {
      const deadline = v.expires_at ? html`<p class="state wait">Answer by ${w.time(v.expires_at)}</p>` : '';
      const form = html`<section class="card" aria-labelledby="answer"><h2 id="answer">A place is free for you</h2>${deadline}<p>The place is kept for you until then; after that it goes to the next person waiting.</p>
<form method="post"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="token" value="${token}"><button class="primary" name="choice" value="accept">Accept and book</button><button class="secondary" name="choice" value="decline">Decline</button></form></section>`;
      return page(`A place is free: ${v.service_name}`, html`${offerCard(v, w)}${form}`);
    }
    case 'accepted':
      return page(
        'Offer accepted',
        html`<section class="card" role="status"><h1>You accepted this offer</h1>${v.booking_path ? html`<p><a href="${v.booking_path}">See your booking</a></p>` : ''}</section>${offerCard(v, w)}`,
      );
    case 'declined':
      return page(
        'Offer declined',
        html`<section class="card" role="status"><h1>You declined this offer</h1><p>The place went to the next person waiting.</p></section>${offerCard(v, w)}`,
      );
    case 'expired':
      return page(
        'Offer expired',
        html`<section class="card" role="status"><h1>This offer has expired</h1><p>It was not answered in time, and the place went to the next person waiting.</p></section>${offerCard(v, w)}`,
        410,
      );
    default:
      return page(
        'No offer open',
        html`<section class="card" role="status"><h1>No place is offered to you right now</h1><p>You are still on the waitlist; we will write when a place frees.</p></section>`,
      );
  }
}

export function registerWaitlistOffer(app: Hono, pipeline: Pipeline, scopeOf: ScopeResolver): void {
  const words = (c: Context, v: { locale: string; zone: string }) =>
    new Words(negotiateLocale(c.req.header('accept-language'), v.locale), v.zone);
  const show = async (c: Context, entryId: string, token: string) => {
    const res = await pipeline.execute(
      operationForPage('waitlist_offer'),
      { input: { entry_id: entryId }, ...asEntry(c, token) },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return refusal(res);
    const v = res.data.offer as WaitlistOfferView | undefined;
    if (!v) return linkDead();
    const csrf = csrfFor(c, { secure: isHttps(c) });
    const r = render(v, words(c, v), csrf.token, token);
    if (csrf.setCookie) r.headers.append('Set-Cookie', csrf.setCookie);
    return r;
  };

  app.get('/waitlist/:entry_id/offer', async (c) => {
    const token = c.req.query('token') ?? '';
    if (!TOKEN.test(token)) return linkDead();
    return show(c, c.req.param('entry_id'), token);
  });

  app.post('/waitlist/:entry_id/offer', async (c) => {
    const form = await readForm(c);
    const entryId = c.req.param('entry_id');
    const token = typeof form.token === 'string' && TOKEN.test(form.token) ? form.token : '';
    if (!csrfOk(c, form.csrf)) {
      const again = token
        ? html`<a href="/waitlist/${encodeURIComponent(entryId)}/offer?token=${token}">Open the offer again</a>; nothing was accepted or declined.`
        : 'Nothing was accepted or declined.';
      return page('Form expired', errorCard({ heading: 'This form has expired', text: again }), 403);
    }
    if (!token) return linkDead();
    const choice = form.choice === 'decline' ? 'decline' : 'accept';
    const res = await pipeline.execute(
      operationForPage(choice === 'accept' ? 'waitlist_offer_accept' : 'waitlist_offer_decline'),
      {
        input: { entry_id: entryId },
        ...asEntry(c, token),
      },
      scopeOf(c.req.raw),
    );
    if (!res.ok) return refusal(res);
    const problem = res.messages.find((m) => m.type === 'error');
    if (problem)
      return page(
        'Not possible',
        errorCard({ heading: problem.content ?? 'The offer could not be answered.', text: 'Nothing was booked.' }),
        409,
      );
    if (choice === 'accept') {
      const booking = res.data.booking as { id: string };
      return c.redirect(`/booking/${encodeURIComponent(booking.id)}`, 303);
    }
    return page(
      'Offer declined',
      html`<section class="card" role="status"><h1>You declined this offer</h1><p>Thank you for saying so: the place goes to the next person waiting.</p></section>`,
    );
  });
}
