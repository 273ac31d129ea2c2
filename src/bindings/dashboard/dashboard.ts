/**
 * The business's dashboard: server-rendered pages at /admin over the admin operations, called
 * through the pipeline as the signed-in business user (never the store). A day and week calendar
 * per staff member and location, the queue of pending confirmations, booking detail with its event
 * history and a reschedule form over the free slots, time off and dated hours, waitlists, the
 * webhook log with retry and signing-key rotation, platform API keys, the audit log and today's
 * figures.
 *
 * No script at all: every screen is a page and every action a form, so the policy forbids script
 * outright (`default-src 'none'`), styles come from our origin only, nothing may frame the pages,
 * and forms post only to us. Sessions are a HttpOnly, SameSite=Strict cookie (Secure over https);
 * every form carries the session's CSRF token (the login form a pre-session one, double-submitted).
 * A new platform key's secret is only ever in the body of the POST that made it (never a URL or a
 * redirect), and every page is `no-store`.
 */
import { createHmac } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { operationForDashboard, type DashboardAction, type Pipeline, type ProtocolError } from '../../operations/index.js';
import { documentShell, errorCard, escapeHtml as esc, html as markup, htmlResponse, isHttps, pageHeaders, raw, readForm, sameText, styleSheet } from '../../web/index.js';
import { DASHBOARD_CSS } from './style.js';
import { minorFromForm, moneyCard } from './money.js';
import { doneWords, errorWords, type DoneCode } from './flash.js';
import { frontDeskScreens } from './front-desk.js';
import { bookingPeople } from './booking-people.js';

export const DASHBOARD_CSS_PATH = '/admin/assets/dashboard.css';
const SESSION_COOKIE = 'usp_admin_session';
const LOGIN_COOKIE = 'usp_admin_login';

export interface DashboardSession {
  email: string;
  csrf: string;
}

/** How the dashboard signs people in: provided by the server (accounts and sessions live in the store). */
export interface DashboardSessions {
  /** The admin key is accepted in place of an account (sandbox only). */
  adminKeyLogin: boolean;
  /** `limited`: refused unchecked, this address (or this user from it) failed too often; try again in `waitS`. */
  login(email: string, password: string, address: string): Promise<{ ok: true; token: string; session: DashboardSession } | { ok: false; limited: boolean; waitS?: number }>;
  lookup(token: string | undefined): Promise<DashboardSession | null>;
  logout(token: string): Promise<void>;
  csrfMatches(session: DashboardSession, presented: string | undefined): boolean;
}

/** A flash message's seal: only the server, knowing the session's CSRF token, makes one. */
const seal = (key: string, code: string, detail: string) => createHmac('sha256', key).update(`${code}\n${detail}`).digest('base64url');

/** The dashboard's paths: /admin itself, its screens under /admin/ui, login, logout and its style sheet. The admin API keeps the rest of /admin. */
export function isDashboardRequest(_req: Request, path: string): boolean {
  return path === '/admin' || path === '/admin/' || path === '/admin/login' || path === '/admin/logout' || path.startsWith('/admin/ui/') || path === DASHBOARD_CSS_PATH;
}

/** The web kit's page headers: its policy (forms post only to us), no-store, no referrer, no framing. */
const HEADERS = pageHeaders();

function html(body: string, status = 200): Response {
  return htmlResponse(body, { status });
}

/** How the dashboard, and the host on its behalf, says no: the web kit's error card in the dashboard's shell. */
export function dashboardRefusal(status: number, err: ProtocolError): Response {
  return html(shell('Error', '', errorCard({ heading: 'Something went wrong', text: err.message, back: { href: '/admin', label: 'Back to the dashboard' } })), status);
}

const NAV: Array<[string, string]> = [
  ['/admin', 'Today'],
  ['/admin/ui/calendar', 'Calendar'],
  ['/admin/ui/walk-in', 'Walk-in'],
  ['/admin/ui/clients', 'Clients'],
  ['/admin/ui/time-off', 'Time off & hours'],
  ['/admin/ui/waitlists', 'Waitlists'],
  ['/admin/ui/webhooks', 'Webhooks'],
  ['/admin/ui/api-keys', 'API keys'],
  ['/admin/ui/audit', 'Audit log'],
];

/** The web kit's document shell with the dashboard's header; `main` is markup the screens built, every value escaped with `esc`. */
function shell(title: string, bizName: string, main: string, opts: { current?: string; csrf?: string; who?: string } = {}): string {
  const nav = opts.csrf
    ? markup`<nav aria-label="Dashboard">${NAV.map(([href, label]) => markup`<a href="${href}"${href === opts.current ? markup` aria-current="page"` : ''}>${label}</a>`)}</nav>
<form class="inline" method="post" action="/admin/logout"><input type="hidden" name="_csrf" value="${opts.csrf}"><button type="submit" title="Signed in as ${opts.who}">Log out</button></form>`
    : '';
  const header = markup`<header><div class="bar"><span class="biz">${bizName || 'usp-server'}</span>${nav}</div></header>`;
  return documentShell({ title: bizName ? `${title} · ${bizName}` : title, styles: [DASHBOARD_CSS_PATH], header, main: raw(main) }).toString();
}

const cookieOpts = (c: Context, maxAge?: number) => ({ httpOnly: true, sameSite: 'Strict' as const, secure: isHttps(c), path: '/admin', ...(maxAge !== undefined ? { maxAge } : {}) });

type Env = { Variables: { session: DashboardSession; token: string } };

/** `clientAddress`: who signs in, for the lockout (the server's one resolver, trusted proxies honoured). */
export function createDashboard(deps: { pipeline: Pipeline; sessions: DashboardSessions; clientAddress?: (req: Request, env: unknown) => string | undefined }): Hono<Env> {
  const { pipeline, sessions } = deps;
  const biz = pipeline.business;
  const bizName = biz.def.business.name;
  const zone = biz.zone;
  const app = new Hono<Env>();
  // A fault (a form that cannot be read, anything unexpected) goes to the host, which answers it in this door's page and logs it.
  app.onError((err) => {
    throw err;
  });

  const timeFmt = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hour12: false });
  const dayFmt = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short' });
  const dateKey = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const hourOf = (ms: number) => Number(timeFmt.format(ms).slice(0, 2));
  const when = (ms: number) => `${dayFmt.format(ms)} ${timeFmt.format(ms)}`;
  const resourceName = (id: string) => biz.resources.get(id)?.name ?? id;

  /** Run an admin operation as the signed-in user, through the pipeline like any other call. */
  const run = (c: Context<Env>, action: DashboardAction, input: Record<string, unknown>) =>
    pipeline.execute(operationForDashboard(action), {
      input,
      trustedCaller: { principal: 'business', profile: null, business: true, authenticated: true, actor: `user:${c.get('session').email}` },
      door: 'dashboard',
      correlationId: (c.env as { correlationId?: string } | undefined)?.correlationId,
    });
  const view = (c: Context<Env>, title: string, current: string, main: string, status = 200) =>
    html(shell(title, bizName, main, { current, csrf: c.get('session').csrf, who: c.get('session').email }), status);
  const csrfField = (c: Context<Env>) => `<input type="hidden" name="_csrf" value="${esc(c.get('session').csrf)}">`;
  /**
   * The redirect after a form carries a code, and the operation's own words only with a seal made
   * with the session's CSRF token: the page shows our words for the code, or the sealed words, never
   * text a link could bring (a crafted /admin?error=... shows the generic sentence).
   */
  const sealedDetail = (c: Context<Env>, code: string) => {
    const detail = c.req.query('detail');
    return detail && sameText(seal(c.get('session').csrf, code, detail), c.req.query('seal') ?? '') ? detail : undefined;
  };
  const flash = (c: Context<Env>) => {
    const ok = c.req.query('ok');
    const bad = c.req.query('error');
    const done = ok ? (doneWords(ok) && (sealedDetail(c, ok) ?? doneWords(ok))) : undefined;
    // `warn` only styles the sealed words as a warning; it brings no text of its own.
    const warn = c.req.query('warn') === '1';
    return (done ? `<p class="flash ${warn ? 'warn' : 'ok'}" role="${warn ? 'alert' : 'status'}">${esc(done)}</p>` : '') + (bad ? `<p class="flash bad" role="alert">${esc(sealedDetail(c, bad) ?? errorWords(bad))}</p>` : '');
  };
  /** Back to `to` after a form, with what happened as a code (and the operation's words, sealed). */
  const back = (c: Context<Env>, to: string, res: Awaited<ReturnType<typeof run>>, done: DoneCode, doneDetail?: string) => {
    const u = new URL(to, 'http://x');
    const refused = res.ok ? res.messages.filter((m) => m.type === 'error') : [];
    const error = !res.ok ? { code: res.error.code, detail: res.error.message } : refused.length ? { code: refused[0].code, detail: refused.map((m) => m.content).join(' ') } : undefined;
    // A warning the operation gave (bookings left inside new time off) is said after our words for what was done.
    const warned = res.ok ? res.messages.filter((m) => m.type === 'warning').map((m) => m.content) : [];
    const doneText = warned.length ? [doneDetail ?? doneWords(done), ...warned].join(' ') : doneDetail;
    const [key, code, detail] = error ? ['error', error.code, error.detail] : ['ok', done, doneText];
    u.searchParams.set(key, code);
    if (!error && warned.length) u.searchParams.set('warn', '1');
    if (detail) {
      u.searchParams.set('detail', detail.slice(0, 1500));
      u.searchParams.set('seal', seal(c.get('session').csrf, code, detail.slice(0, 1500)));
    }
    return new Response(null, { status: 303, headers: { Location: u.pathname + u.search } });
  };

  app.get(DASHBOARD_CSS_PATH, () => styleSheet(DASHBOARD_CSS));

  // ---- login and logout ---------------------------------------------------------------------
  const loginPage = (c: Context, message = '', status = 200) => {
    const token = crypto.randomUUID();
    setCookie(c, LOGIN_COOKIE, token, cookieOpts(c, 600));
    const res = c.html(
      shell(
        'Sign in',
        bizName,
        `<div class="card login"><h1>Sign in</h1>${message ? `<p class="flash bad" role="alert">${esc(message)}</p>` : ''}
<form class="stack" method="post" action="/admin/login"><input type="hidden" name="_csrf" value="${esc(token)}">
<label>Email<input type="email" name="email" autocomplete="username"${sessions.adminKeyLogin ? '' : ' required'}></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button class="primary" type="submit">Sign in</button></form>
${sessions.adminKeyLogin ? '<p class="note">Sandbox: leave the email empty and give the admin key as the password.</p>' : ''}</div>`,
      ),
      status as 200,
      HEADERS,
    );
    return res;
  };
  app.get('/admin/login', (c) => loginPage(c));
  app.post('/admin/login', async (c) => {
    const form = await readForm(c);
    const expected = getCookie(c, LOGIN_COOKIE);
    if (!expected || form._csrf !== expected) return loginPage(c, 'The sign-in form expired; please try again.', 403);
    const r = await sessions.login(String(form.email ?? ''), String(form.password ?? ''), deps.clientAddress?.(c.req.raw, c.env) ?? 'unknown');
    if (!r.ok) {
      const res = loginPage(c, r.limited ? `Too many failed attempts from here; wait ${r.waitS ?? 1} seconds and try again.` : 'Wrong email or password.', r.limited ? 429 : 401);
      if (r.limited) res.headers.set('Retry-After', String(r.waitS ?? 1));
      return res;
    }
    deleteCookie(c, LOGIN_COOKIE, { path: '/admin' });
    setCookie(c, SESSION_COOKIE, r.token, cookieOpts(c));
    return c.redirect('/admin', 303);
  });

  // ---- everything else needs a session, and every form its CSRF token ------------------------
  app.use('*', async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await sessions.lookup(token);
    if (!session || !token) {
      if (c.req.method === 'GET') return c.redirect('/admin/login', 303);
      const again = markup`Your session has ended. <a href="/admin/login">Sign in again</a>.`;
      return html(shell('Sign in', bizName, errorCard({ heading: 'Signed out', text: again })), 401);
    }
    if (c.req.method === 'POST') {
      const form = await readForm(c);
      if (!sessions.csrfMatches(session, typeof form._csrf === 'string' ? form._csrf : undefined)) {
        const why = 'This form did not come from your dashboard (its CSRF token is missing or wrong); nothing was changed.';
        return html(shell('Refused', bizName, errorCard({ heading: 'Refused', text: why, back: { href: '/admin', label: 'Back to the dashboard' } })), 403);
      }
    }
    c.set('session', session);
    c.set('token', token);
    await next();
  });
  app.post('/admin/logout', async (c) => {
    await sessions.logout(c.get('token'));
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/login', 303);
  });

  // ---- screens ------------------------------------------------------------------------------
  const badge = (s: string) => `<span class="state s-${esc(s)}">${esc(s.replace('_', ' '))}</span>`;
  const buyerName = (b: any) => `${b.buyer.first_name} ${b.buyer.last_name}`;
  const evLink = (row: any) =>
    `<a class="ev s-${esc(row.booking.status)}" href="/admin/ui/bookings/${encodeURIComponent(row.booking.id)}">${timeFmt.format(row.start_ms)} ${esc(buyerName(row.booking))}<br><small>${esc(row.booking.service_name)} · ${esc(row.booking.status.replace('_', ' '))}</small></a>`;

  /** A grid of hours by column (staff members in a day, days in a week); each cell lists the bookings starting in it. */
  function calendar(rows: any[], range: any, viewKind: 'day' | 'week', resourceFilter?: string): string {
    let cols: Array<{ key: string; label: string; match: (r: any) => boolean }>;
    if (viewKind === 'week') {
      cols = Array.from({ length: 7 }, (_, i) => {
        const d = new Date(`${range.from}T12:00:00Z`);
        d.setUTCDate(d.getUTCDate() + i);
        const key = d.toISOString().slice(0, 10);
        return { key, label: dayFmt.format(d.getTime()), match: (r: any) => dateKey.format(r.start_ms) === key };
      });
    } else {
      const ids = resourceFilter ? [resourceFilter] : [...new Set(rows.flatMap((r) => r.resource_ids as string[]))];
      const staff = [...biz.resources.values()].filter((r) => (resourceFilter ? r.id === resourceFilter : r.type === 'staff' || ids.includes(r.id)));
      cols = staff.map((s) => ({ key: s.id, label: s.name, match: (r: any) => r.resource_ids.includes(s.id) }));
      const other = rows.filter((r) => !r.resource_ids.some((id: string) => staff.some((s) => s.id === id)));
      if (other.length > 0 || cols.length === 0) cols.push({ key: '_', label: 'Other', match: (r: any) => !r.resource_ids.some((id: string) => staff.some((s) => s.id === id)) });
    }
    const hours = rows.map((r) => hourOf(r.start_ms));
    const first = Math.min(8, ...hours);
    const last = Math.max(18, ...hours);
    const body: string[] = [];
    for (let h = first; h <= last; h++) {
      const cells = cols.map((col) => {
        const here = rows.filter((r) => col.match(r) && hourOf(r.start_ms) === h);
        return here.length ? `<td data-col="${esc(col.label)}">${here.map(evLink).join('')}</td>` : '<td></td>';
      });
      body.push(`<tr${cells.every((x) => x === '<td></td>') ? ' class="empty"' : ''}><td class="hour">${String(h).padStart(2, '0')}:00</td>${cells.join('')}</tr>`);
    }
    return `<table class="cal"><caption class="note">Times in ${esc(zone)}</caption><thead><tr><th scope="col">Time</th>${cols.map((c) => `<th scope="col">${esc(c.label)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
  }

  app.get('/admin', async (c) => {
    const [fig, pend, todays] = [await run(c, 'figures', {}), await run(c, 'bookings', { view: 'all', status: 'pending' }), await run(c, 'bookings', { view: 'day' })];
    if (!fig.ok || !pend.ok || !todays.ok) return dashboardRefusal(500, (!fig.ok ? fig : !pend.ok ? pend : (todays as any)).error);
    const f = fig.data.figures as any;
    const money = Object.entries(f.revenue_minor as Record<string, number>)
      .map(([cur, n]) => new Intl.NumberFormat('en', { style: 'currency', currency: cur }).format(n / 100))
      .join(' · ') || '—';
    // Pending confirmations: every pending booking, soonest first.
    const queue = (pend.data.bookings as any[]).filter((r) => r.booking.confirmation_mode === 'manual').sort((a, b) => a.start_ms - b.start_ms);
    const figures = `<div class="figures">
<div class="figure"><b>${f.bookings}</b><span>bookings today</span></div>
<div class="figure"><b>${f.by_status.confirmed ?? 0}</b><span>confirmed</span></div>
<div class="figure"><b>${f.pending_confirmations}</b><span>waiting for you</span></div>
<div class="figure"><b>${esc(money)}</b><span>booked today</span></div>
<div class="figure"><b>${f.failed_deliveries}</b><span>failed webhooks</span></div></div>`;
    const pendingCard = `<section class="card" aria-labelledby="q"><h2 id="q">Waiting for confirmation</h2>${
      queue.length === 0
        ? '<p class="note">Nothing waits for you.</p>'
        : `<table class="list"><thead><tr><th>When</th><th>Buyer</th><th>Service</th><th>Actions</th></tr></thead><tbody>${queue
            .map(
              (r) => `<tr><td>${esc(when(r.start_ms))}</td><td><a href="/admin/ui/bookings/${encodeURIComponent(r.booking.id)}">${esc(buyerName(r.booking))}</a></td><td>${esc(r.booking.service_name)}</td>
<td><form class="inline" method="post" action="/admin/ui/bookings/${encodeURIComponent(r.booking.id)}/confirm">${csrfField(c)}<button class="primary" type="submit">Confirm</button></form>
<a class="button" href="/admin/ui/bookings/${encodeURIComponent(r.booking.id)}#decline">Decline…</a></td></tr>`,
            )
            .join('')}</tbody></table>`
    }</section>`;
    const today = todays.data.range as any;
    return view(c, 'Today', '/admin', `<h1>Today, ${esc(dayFmt.format(Date.parse(`${today.from}T12:00:00Z`)))}</h1>${flash(c)}${figures}${pendingCard}
<section class="card" aria-labelledby="t"><h2 id="t">Today's calendar</h2>${(todays.data.bookings as any[]).length === 0 ? '<p class="note">No bookings today.</p>' : calendar(todays.data.bookings as any[], today, 'day')}</section>`);
  });

  app.get('/admin/ui/calendar', async (c) => {
    const q = c.req.query();
    const input: Record<string, unknown> = { view: q.view === 'week' ? 'week' : 'day' };
    for (const k of ['date', 'resource_id', 'location_id', 'status', 'buyer']) if (q[k]) input[k] = q[k];
    const res = await run(c, 'bookings', input);
    if (!res.ok) return view(c, 'Calendar', '/admin/ui/calendar', `<h1>Calendar</h1><p class="flash bad" role="alert">${esc(res.error.message)}</p><p><a href="/admin/ui/calendar">Back to today</a></p>`, 400);
    const range = res.data.range as any;
    const rows = res.data.bookings as any[];
    const opt = (v: string, label: string, cur: string | undefined) => `<option value="${esc(v)}"${v === (cur ?? '') ? ' selected' : ''}>${esc(label)}</option>`;
    const shift = (days: number) => {
      const d = new Date(`${range.from}T12:00:00Z`);
      d.setUTCDate(d.getUTCDate() + days);
      const p = new URLSearchParams({ ...q, date: d.toISOString().slice(0, 10) });
      return `/admin/ui/calendar?${p}`;
    };
    const step = input.view === 'week' ? 7 : 1;
    const filters = `<form class="filters" method="get" action="/admin/ui/calendar">
<label>Date<input type="date" name="date" value="${esc(q.date ?? range.from)}"></label>
<label>View<select name="view">${opt('day', 'Day', input.view as string)}${opt('week', 'Week', input.view as string)}</select></label>
<label>Staff<select name="resource_id">${opt('', 'Everyone', q.resource_id)}${[...biz.resources.values()].map((r) => opt(r.id, r.name, q.resource_id)).join('')}</select></label>
<label>Location<select name="location_id">${opt('', 'All', q.location_id)}${biz.def.business.locations.map((l) => opt(l.id, l.name, q.location_id)).join('')}</select></label>
<label>Status<select name="status">${opt('', 'Any', q.status)}${['pending', 'confirmed', 'in_progress', 'completed', 'canceled', 'no_show'].map((s) => opt(s, s.replace('_', ' '), q.status)).join('')}</select></label>
<label>Buyer<input type="search" name="buyer" value="${esc(q.buyer ?? '')}" placeholder="name, email, phone"></label>
<button type="submit">Show</button></form>`;
    const title = input.view === 'week' ? `Week of ${dayFmt.format(Date.parse(`${range.from}T12:00:00Z`))}` : dayFmt.format(Date.parse(`${range.from}T12:00:00Z`));
    return view(
      c,
      'Calendar',
      '/admin/ui/calendar',
      `<h1>${esc(title)}</h1><div class="card">${filters}<p class="actions"><a class="button" href="${esc(shift(-step))}">← Previous</a><a class="button" href="${esc(shift(step))}">Next →</a></p></div>
<div class="card">${calendar(rows, range, input.view as 'day' | 'week', q.resource_id || undefined)}<p class="note">${rows.length} booking${rows.length === 1 ? '' : 's'}.</p></div>`,
    );
  });

  app.get('/admin/ui/bookings/:id', async (c) => {
    const res = await run(c, 'booking_detail', { booking_id: c.req.param('id') });
    if (!res.ok || res.messages.some((m) => m.type === 'error')) {
      return view(c, 'Booking', '', `<h1>Booking not found</h1><p>${esc(res.ok ? res.messages[0]?.content : res.error.message)}</p>`, 404);
    }
    const b = res.data.booking as any;
    const id = encodeURIComponent(b.id);
    const btn = (action: string, label: string, cls = '') => `<form class="inline" method="post" action="/admin/ui/bookings/${id}/${action}">${csrfField(c)}<button class="${cls}" type="submit">${label}</button></form>`;
    const moves: string[] = [];
    if (b.status === 'pending' && b.confirmation_mode === 'manual') moves.push(btn('confirm', 'Confirm', 'primary'));
    if (b.status === 'confirmed' || b.status === 'in_progress') moves.push(btn('complete', 'Mark completed'), btn('no_show', 'Mark no-show'));
    if (['pending', 'requires_action', 'confirmed'].includes(b.status)) moves.push(btn('cancel', 'Cancel as the business', 'danger'));
    const decline =
      b.status === 'pending'
        ? `<form class="stack" id="decline" method="post" action="/admin/ui/bookings/${id}/decline">${csrfField(c)}<label>Reason for declining<input name="reason" required maxlength="1000"></label><button class="danger" type="submit">Decline</button></form>`
        : '';
    const reschedule = ['pending', 'requires_action', 'confirmed'].includes(b.status) ? await rescheduleCard(c, b, res.data.start_ms as number, (res.data.resource_ids as string[]) ?? []) : '';
    const events = (res.data.events as any[])
      .map((e) => `<tr><td>${esc(e.timestamp)}</td><td>${esc(e.event)}</td><td>${esc(e.event_id)}</td></tr>`)
      .join('');
    return view(
      c,
      `Booking ${b.id}`,
      '',
      `<h1>${esc(buyerName(b))} · ${esc(b.service_name)}</h1>${flash(c)}
<div class="card"><p>${badge(b.status)}</p><dl><dt>When</dt><dd>${esc(when(res.data.start_ms as number))}–${esc(timeFmt.format(res.data.end_ms as number))}</dd>
<dt>Staff</dt><dd>${esc(((res.data.resource_ids as string[]) ?? []).map(resourceName).join(', ') || '—')}</dd>
${bookingPeople(b)}
<dt>Party</dt><dd>${esc(b.party_size)}</dd><dt>Booking id</dt><dd>${esc(b.id)}</dd><dt>Platform</dt><dd>${esc(res.data.platform ?? 'direct')}</dd>
${b.cancellation ? `<dt>Canceled</dt><dd>by ${esc(b.cancellation.canceled_by)}${b.cancellation.reason ? `: ${esc(b.cancellation.reason)}` : ''}</dd>` : ''}</dl>
<div class="actions">${moves.join('')}</div>${decline}</div>${moneyCard(res.data.money as never, { csrf: csrfField(c), action: `/admin/ui/bookings/${id}/refund` })}${reschedule}
<section class="card" aria-labelledby="h"><h2 id="h">History</h2><table class="list"><thead><tr><th>At</th><th>Event</th><th>Event id</th></tr></thead><tbody>${events || '<tr><td colspan="3">No events yet.</td></tr>'}</tbody></table></section>`,
    );
  });

  /**
   * Reschedule: a date and a staff member (the booking's own by default), then that day's free
   * slots of the booking's service for its party (the availability operation, as the business),
   * each a radio button; the reschedule operation re-checks the chosen slot and answers
   * slot_unavailable if it was taken in between.
   */
  async function rescheduleCard(c: Context<Env>, b: any, startMs: number, resourceIds: string[]): Promise<string> {
    const id = encodeURIComponent(b.id);
    const asked = c.req.query('date');
    const date = asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : dateKey.format(startMs);
    const staff = [...biz.resources.values()].filter((r) => r.type === 'staff');
    const askedStaff = c.req.query('staff');
    const who = askedStaff !== undefined ? (staff.some((r) => r.id === askedStaff) ? askedStaff : '') : (resourceIds.find((r) => staff.some((x) => x.id === r)) ?? '');
    const input: Record<string, unknown> = { service_id: b.service_id, start_date: date, end_date: date, party_size: b.party_size };
    if (who) input.resource_id = who;
    const free = await run(c, 'free_slots', input);
    const slots = free.ok ? (free.data.slots as any[]).filter((x) => x.state !== 'waitlist') : [];
    const problem = !free.ok ? free.error.message : free.messages.find((m) => m.type === 'error')?.content;
    const choices = slots
      .map((x, i) => {
        const staff = ((x.resources as any[]) ?? []).map((r) => r.name).join(', ');
        return `<label><input type="radio" name="slot_id" value="${esc(x.id)}"${i === 0 ? ' required' : ''}>${esc(timeFmt.format(Date.parse(x.start)))}–${esc(timeFmt.format(Date.parse(x.end)))}${staff ? ` <small>${esc(staff)}</small>` : ''}</label>`;
      })
      .join('');
    const pick = problem
      ? `<p class="flash bad" role="alert">${esc(problem)}</p>`
      : choices
        ? `<form method="post" action="/admin/ui/bookings/${id}/reschedule">${csrfField(c)}<fieldset class="slots"><legend>Free times on ${esc(dayFmt.format(Date.parse(`${date}T12:00:00Z`)))}</legend>${choices}</fieldset>
<button class="primary" type="submit">Move the booking</button></form>`
        : '<p class="note">No free time that day for this service and party; try another date.</p>';
    return `<section class="card" id="reschedule" aria-labelledby="rs"><h2 id="rs">Reschedule</h2>
<form class="filters" method="get" action="/admin/ui/bookings/${id}"><label>New date<input type="date" name="date" value="${esc(date)}" required></label>
<label>With<select name="staff"><option value="">Anyone</option>${staff.map((r) => `<option value="${esc(r.id)}"${r.id === who ? ' selected' : ''}>${esc(r.name)}</option>`).join('')}</select></label><button type="submit">Show free times</button></form>
${pick}<p class="note">Times in ${esc(zone)}. The booking keeps its id; the platform hears booking.rescheduled, and the service's reschedule rules (limit, fee) apply.</p></section>`;
  }

  const MOVES: Record<string, { action: DashboardAction; done: DoneCode }> = {
    confirm: { action: 'confirm', done: 'confirmed' },
    decline: { action: 'decline', done: 'declined' },
    refund: { action: 'refund', done: 'refunded' },
    cancel: { action: 'cancel', done: 'canceled' },
    complete: { action: 'complete', done: 'completed' },
    no_show: { action: 'no_show', done: 'no_show' },
    reschedule: { action: 'reschedule', done: 'rescheduled' },
  };
  app.post('/admin/ui/bookings/:id/:move', async (c) => {
    const move = MOVES[c.req.param('move')];
    const id = c.req.param('id');
    if (!move) return view(c, 'Not found', '', '<h1>Not found</h1>', 404);
    const form = await readForm(c);
    const input: Record<string, unknown> = { booking_id: id };
    if (typeof form.reason === 'string' && form.reason) input.reason = form.reason;
    if (move.action === 'decline') input.reason = typeof form.reason === 'string' ? form.reason : '';
    if (move.action === 'refund') Object.assign(input, { reason: typeof form.reason === 'string' ? form.reason : '', amount: minorFromForm(form.amount) });
    if (move.action === 'reschedule') input.slot_id = typeof form.slot_id === 'string' ? form.slot_id : '';
    return back(c, `/admin/ui/bookings/${encodeURIComponent(id)}`, await run(c, move.action, input), move.done);
  });

  app.get('/admin/ui/time-off', async (c) => {
    const res = await run(c, 'schedule_changes', {});
    const list = res.ok ? (res.data.changes as any[]) : [];
    const hoursText = (hours: any[]) => (hours.length ? `open ${hours.map((h) => `${h.opens}–${h.closes}`).join(', ')}` : 'closed all day');
    const rows = list
      .map(
        (ch) => `<tr><td>${esc(resourceName(ch.resource_id))}</td><td data-col="Kind">${ch.kind === 'time_off' ? 'Time off' : 'Hours for a date'}</td>
<td>${ch.kind === 'time_off' ? `${esc(ch.start.replace('T', ' ').slice(0, 16))} → ${esc(ch.end.replace('T', ' ').slice(0, 16))}` : `${esc(ch.date)}: ${esc(hoursText(ch.hours as any[]))}`}</td>
<td>${esc(ch.reason ?? '')}</td><td><form class="inline" method="post" action="/admin/ui/time-off/${encodeURIComponent(ch.id)}/remove">${csrfField(c)}<button class="danger" type="submit">Remove</button></form></td></tr>`,
      )
      .join('');
    const staff = [...biz.resources.values()];
    const staffSelect = `<select name="resource_id" required>${staff.map((r) => `<option value="${esc(r.id)}">${esc(r.name)}</option>`).join('')}</select>`;
    return view(
      c,
      'Time off & hours',
      '/admin/ui/time-off',
      `<h1>Time off &amp; hours</h1>${flash(c)}<section class="card" aria-labelledby="h-off"><h2 id="h-off">Add time off</h2><form class="stack" id="time-off" method="post" action="/admin/ui/time-off">${csrfField(c)}
<label>Staff member${staffSelect}</label>
<label>From<input type="datetime-local" name="start" required></label><label>Until<input type="datetime-local" name="end" required></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Add time off</button></form>
<p class="note">Times in ${esc(zone)}. The slots disappear from availability at once; platforms are told the catalog changed.</p></section>
<section class="card" aria-labelledby="h-exc"><h2 id="h-exc">Hours for one date</h2><form class="stack" id="exception" method="post" action="/admin/ui/time-off/exception">${csrfField(c)}
<label>Staff member or resource${staffSelect}</label><label>Date<input type="date" name="date" required></label>
<label>Opens<input type="time" name="opens"></label><label>Closes<input type="time" name="closes"></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Set the hours</button></form>
<p class="note">These hours replace the weekly hours for that date only (an extra Sunday, a short day). Leave Opens and Closes empty to close the day. One per date: remove it below to change it.</p></section>
<section class="card" aria-labelledby="h-list"><h2 id="h-list">Added here</h2>${rows ? `<table class="list"><thead><tr><th>Staff</th><th>Kind</th><th>When</th><th>Reason</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="note">No time off or dated hours added from the dashboard.</p>'}</section>`,
    );
  });
  app.post('/admin/ui/time-off/exception', async (c) => {
    const form = await readForm(c);
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    // Both times empty: closed all day; otherwise one interval, which the operation checks.
    const hours = str(form.opens) || str(form.closes) ? [{ opens: str(form.opens), closes: str(form.closes) }] : [];
    const input: Record<string, unknown> = { resource_id: form.resource_id, date: form.date, hours };
    if (str(form.reason)) input.reason = form.reason;
    return back(c, '/admin/ui/time-off', await run(c, 'exception_add', input), hours.length ? 'hours_set' : 'day_closed');
  });
  app.post('/admin/ui/time-off', async (c) => {
    const form = await readForm(c);
    const input: Record<string, unknown> = { resource_id: form.resource_id, start: form.start, end: form.end };
    if (typeof form.reason === 'string' && form.reason) input.reason = form.reason;
    return back(c, '/admin/ui/time-off', await run(c, 'time_off_add', input), 'time_off_added');
  });
  app.post('/admin/ui/time-off/:id/remove', async (c) =>
    back(c, '/admin/ui/time-off', await run(c, 'schedule_change_remove', { change_id: c.req.param('id') }), 'removed'),
  );

  app.get('/admin/ui/waitlists', async (c) => {
    const cards: string[] = [];
    for (const s of biz.services.values()) {
      const res = await run(c, 'waitlist', { service_id: s.id });
      const entries = res.ok ? (res.data.entries as any[]) : [];
      cards.push(
        `<section class="card"><h2>${esc(s.name)}</h2>${
          entries.length === 0
            ? '<p class="note">Nobody is waiting.</p>'
            : `<table class="list"><thead><tr><th>Since</th><th>Status</th><th>Entry</th></tr></thead><tbody>${entries
                .map((e) => `<tr><td>${esc(e.created_at)}</td><td>${badge(e.status)}</td><td>${esc(e.id)}</td></tr>`)
                .join('')}</tbody></table>`
        }</section>`,
      );
    }
    return view(c, 'Waitlists', '/admin/ui/waitlists', `<h1>Waitlists</h1>${cards.join('')}`);
  });

  app.get('/admin/ui/webhooks', async (c) => {
    const [res, keyRes] = [await run(c, 'deliveries', { limit: 100 }), await run(c, 'signing_keys', {})];
    const list = res.ok ? (res.data.deliveries as any[]) : [];
    const rows = list
      .map(
        (d) => `<tr><td>${esc(d.created_at.replace('T', ' ').slice(0, 19))}</td><td>${esc(d.event)}</td><td>${badge(d.status)}</td><td data-col="Attempts">${esc(d.attempts)}</td>
<td data-col="Last answer">${esc(d.last_status ?? d.last_error ?? '')}</td><td class="note">${esc(d.target_url)}</td>
<td>${d.status === 'failed' ? `<form class="inline" method="post" action="/admin/ui/webhooks/${esc(d.id)}/retry">${csrfField(c)}<button type="submit">Retry</button></form>` : ''}</td></tr>`,
      )
      .join('');
    const keys = keyRes.ok ? (keyRes.data.keys as any[]) : [];
    const keyRows = keys
      .map(
        (k) => `<tr><td><code>${esc(k.kid)}</code></td><td data-col="Created">${esc(when(Date.parse(k.created_at)))}</td><td>${
          k.retired_at ? `retired ${esc(when(Date.parse(k.retired_at)))}, still published` : '<span class="state s-confirmed">signs deliveries</span>'
        }</td></tr>`,
      )
      .join('');
    return view(
      c,
      'Webhooks',
      '/admin/ui/webhooks',
      `<h1>Webhook deliveries</h1>${flash(c)}<div class="card">${rows ? `<table class="list"><thead><tr><th>Created</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Target</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="note">No deliveries yet.</p>'}</div>
<section class="card" aria-labelledby="h-keys"><h2 id="h-keys">Signing key</h2>
<p>Every delivery is signed (HTTP Message Signatures, RFC 9421) with the key in use; platforms check the signature against the public keys published in your profile.</p>
${keyRows ? `<table class="list"><thead><tr><th>Key id</th><th>Created</th><th>State</th></tr></thead><tbody>${keyRows}</tbody></table>` : '<p class="note">This server has no signing keys.</p>'}
<form method="post" action="/admin/ui/webhooks/rotate-key">${csrfField(c)}<p class="note">Rotating makes a new key that signs every delivery from now on. The old key stays published for 7 days, so deliveries already on their way still verify; after that it is gone. Rotate if you think the key leaked.</p>
<button type="submit">Rotate the signing key</button></form></section>`,
    );
  });
  app.post('/admin/ui/webhooks/:id/retry', async (c) =>
    back(c, '/admin/ui/webhooks', await run(c, 'delivery_retry', { delivery_id: c.req.param('id') }), 'delivery_queued'),
  );
  app.post('/admin/ui/webhooks/rotate-key', async (c) => {
    const res = await run(c, 'signing_key_rotate', {});
    return back(c, '/admin/ui/webhooks', res, 'key_rotated', res.ok ? `New signing key ${(res.data.key as { kid: string }).kid} signs deliveries from now on.` : undefined);
  });

  // ---- platform API keys: listed without secrets; a new key's secret only in the POST's answer ----
  const keyRow = (k: any) =>
    `<tr><td>${esc(k.label)}</td><td data-col="Key id"><code>${esc(k.id)}</code></td><td data-col="Created">${esc(when(Date.parse(k.created_at)))}</td>
<td>${k.revoked_at ? `<span class="state s-canceled">revoked</span> <small>${esc(when(Date.parse(k.revoked_at)))}</small>` : '<span class="state s-confirmed">active</span>'}</td>
<td>${k.revoked_at ? '' : `<a class="button danger" href="/admin/ui/api-keys/${encodeURIComponent(k.id)}/revoke">Revoke…</a>`}</td></tr>`;
  app.get('/admin/ui/api-keys', async (c) => {
    const res = await run(c, 'api_keys', {});
    const keys = res.ok ? (res.data.api_keys as any[]) : [];
    return view(
      c,
      'API keys',
      '/admin/ui/api-keys',
      `<h1>Platform API keys</h1>${flash(c)}<section class="card" aria-labelledby="h-new"><h2 id="h-new">Create a key</h2><form class="stack" id="new-key" method="post" action="/admin/ui/api-keys">${csrfField(c)}
<label>Whose key (the platform)<input name="label" required maxlength="200"></label><button class="primary" type="submit">Create key</button></form>
<p class="note">A platform sends its key as a Bearer token. The key is shown once, on the next page; only a hash of it is kept.</p></section>
<section class="card" aria-labelledby="h-keys"><h2 id="h-keys">Keys</h2>${
        keys.length ? `<table class="list"><thead><tr><th>Platform</th><th>Key id</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>${keys.map(keyRow).join('')}</tbody></table>` : '<p class="note">No keys created here yet.</p>'
      }</section>`,
    );
  });
  app.post('/admin/ui/api-keys', async (c) => {
    const form = await readForm(c);
    const res = await run(c, 'api_key_create', { label: typeof form.label === 'string' ? form.label : '' });
    if (!res.ok) return back(c, '/admin/ui/api-keys', res, 'removed');
    const key = res.data.api_key as any;
    // The secret is in this page only: the page is no-store, and nothing redirects with it.
    return view(
      c,
      'New API key',
      '/admin/ui/api-keys',
      `<h1>New key for ${esc(key.label)}</h1><section class="card" aria-labelledby="h-secret"><h2 id="h-secret">Copy the key now</h2>
<p class="secret"><code id="secret">${esc(res.data.secret)}</code></p>
<p>Give it to ${esc(key.label)} over a safe channel. <strong>It is not shown again</strong>: only its hash is kept. If it is lost, revoke it and create another.</p>
<dl><dt>Key id</dt><dd><code>${esc(key.id)}</code></dd><dt>Created</dt><dd>${esc(when(Date.parse(key.created_at)))}</dd></dl>
<p class="actions"><a class="button" href="/admin/ui/api-keys">Done, back to the keys</a></p></section>`,
    );
  });
  app.get('/admin/ui/api-keys/:id/revoke', async (c) => {
    const res = await run(c, 'api_keys', {});
    const key = res.ok ? (res.data.api_keys as any[]).find((k) => k.id === c.req.param('id')) : undefined;
    if (!key || key.revoked_at) return view(c, 'API keys', '/admin/ui/api-keys', `<h1>No such active key</h1><p><a href="/admin/ui/api-keys">Back to the keys</a></p>`, 404);
    return view(
      c,
      'Revoke a key',
      '/admin/ui/api-keys',
      `<h1>Revoke the key of ${esc(key.label)}?</h1><section class="card" aria-labelledby="h-sure"><h2 id="h-sure">This cannot be undone</h2>
<p>Every call made with key <code>${esc(key.id)}</code> is refused from the moment you revoke it; ${esc(key.label)} needs a new key to go on.</p>
<div class="actions"><form class="inline" method="post" action="/admin/ui/api-keys/${encodeURIComponent(key.id)}/revoke">${csrfField(c)}<button class="danger" type="submit">Revoke the key</button></form>
<a class="button" href="/admin/ui/api-keys">Keep it</a></div></section>`,
    );
  });
  app.post('/admin/ui/api-keys/:id/revoke', async (c) =>
    back(c, '/admin/ui/api-keys', await run(c, 'api_key_revoke', { key_id: c.req.param('id') }), 'api_key_revoked'),
  );

  // ---- the audit log, newest first, 50 a page (keyset paging on the entry's sequence number) ----
  const AUDIT_PAGE = 50;
  const actorName = (a: string) => (a.startsWith('user:') ? a.slice(5) : a === 'admin_api_key' ? 'Admin API key' : a === 'cli' ? 'Command line' : a);
  app.get('/admin/ui/audit', async (c) => {
    const before = c.req.query('before');
    const input: Record<string, unknown> = { limit: String(AUDIT_PAGE) };
    if (before && /^\d+$/.test(before)) input.before = before;
    const res = await run(c, 'audit_log', input);
    if (!res.ok) return view(c, 'Audit log', '/admin/ui/audit', `<h1>Audit log</h1><p class="flash bad" role="alert">${esc(res.error.message)}</p>`, 400);
    const entries = res.data.entries as any[];
    const rows = entries
      .map((e) => {
        const ms = Date.parse(e.at);
        const on = e.target ? String(e.target) : '';
        const target = on.startsWith('bkg_') ? `<a href="/admin/ui/bookings/${encodeURIComponent(on)}">${esc(on)}</a>` : esc(biz.resources.has(on) ? resourceName(on) : on);
        return `<tr><td>${esc(dateKey.format(ms))} ${esc(timeFmt.format(ms))}</td><td data-col="Who">${esc(actorName(e.actor))}</td><td data-col="What">${esc(String(e.action).replaceAll('_', ' '))}</td><td${on ? ' data-col="On"' : ''}>${target}</td><td>${badge(e.outcome)}</td></tr>`;
      })
      .join('');
    const pages: string[] = [];
    if (input.before) pages.push('<a class="button" href="/admin/ui/audit">Newest</a>');
    if (entries.length === AUDIT_PAGE) pages.push(`<a class="button" href="/admin/ui/audit?before=${encodeURIComponent(entries[entries.length - 1].seq)}">Older →</a>`);
    return view(
      c,
      'Audit log',
      '/admin/ui/audit',
      `<h1>Audit log</h1><section class="card" aria-labelledby="h-audit"><h2 id="h-audit">Who changed what, newest first</h2>${
        rows ? `<table class="list"><thead><tr><th>When</th><th>Who</th><th>What</th><th>On</th><th>Outcome</th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="note">Nothing recorded yet.</p>'
      }<p class="note">Times in ${esc(zone)}. Every change made as the business (dashboard, admin API, command line) is recorded.</p>${pages.length ? `<p class="actions">${pages.join('')}</p>` : ''}</section>`,
    );
  });

  frontDeskScreens({ app, pipeline, run, view, csrfField, flash, back });

  app.notFound((c) => (c.get('session') ? view(c as Context<Env>, 'Not found', '', '<h1>Not found</h1>', 404) : c.redirect('/admin/login', 303)));
  return app;
}
