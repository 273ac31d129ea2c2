/**
 * The operator's screen at the operator host (`/console`): the businesses with their health, and a
 * suspend (with reason) or resume form on each, a form that mails the owner her setup link, and
 * one that adds a custom domain, with the DNS record that verifies it and its verify button; the
 * export of its data (a download) and a delete form, refused until the export was taken unless ticked. Server-rendered with the web kit's shell and page
 * policy (no script), working without JavaScript. Sign-in with the operator key sets a session cookie
 * (random, HttpOnly, SameSite=Strict, 8 hours, in memory: a restart signs everyone out); every form
 * carries the session's CSRF token, compared in constant time, and a post another site sent is refused.
 */
import { randomBytes } from 'node:crypto';
import { documentShell, html, htmlResponse, sameText, styleSheet, type Html } from '../../web/index.js';
import type { OperatorBusiness, OperatorDesk } from './desk.js';

export const SCREEN_PREFIX = '/console';
const COOKIE = 'usp_operator';
const SESSION_MS = 8 * 3600_000;
const MAX_SESSIONS = 1000;
const CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:72rem;margin:0 auto;padding:1rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}
.suspended{color:#8a1c00;font-weight:600}
.attention{color:#8a1c00}
form{margin:.2rem 0}
label{display:block}
label.inline{display:inline;margin:0 .4rem 0 .2rem}
input[type=text],input[type=password],input[type=email]{padding:.3rem;border:1px solid #555;min-width:12rem}
button{padding:.3rem .8rem;border:1px solid #1b1b1b;background:#fff;color:#1b1b1b;cursor:pointer}
.error{color:#8a1c00}
.wide{overflow-x:auto}
code{overflow-wrap:anywhere}
@media (max-width:40rem){
.wide{overflow-x:visible}
table,tbody,tr,td{display:block}
caption{display:block;text-align:left;padding:.4rem 0}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
tr{border:1px solid #ccc;margin:0 0 1rem}
td{border:0;border-top:1px solid #e4e4e4;overflow-wrap:anywhere}
td:first-child{border-top:0;font-weight:600}
td::before{content:attr(data-label);display:block;font-size:.85rem;font-weight:600;color:#444}
input[type=text],input[type=password],input[type=email]{min-width:0;width:100%;box-sizing:border-box}
}`;

interface Session {
  csrf: string;
  expires: number;
}

export interface ScreenOptions {
  desk: OperatorDesk;
  /** Whether the key is an operator key (the door's constant-time check and its failure backoff). */
  signIn(key: string, req: Request, env: unknown): 'ok' | 'wrong' | 'wait';
  now(): number;
}

/** The screen's handler, for requests whose path is under /console (or is /). */
export function createOperatorScreen(o: ScreenOptions): (req: Request, env: unknown) => Promise<Response> {
  const sessions = new Map<string, Session>();
  const current = (req: Request): Session | undefined => {
    const id = cookie(req, COOKIE);
    const s = id ? sessions.get(id) : undefined;
    if (s && s.expires <= o.now()) sessions.delete(id!);
    return s && s.expires > o.now() ? s : undefined;
  };
  return async (req, env) => {
    const url = new URL(req.url);
    const path = url.pathname;
    const secure = url.protocol === 'https:' || req.headers.get('x-forwarded-proto') === 'https';
    if (path === '/' || path === SCREEN_PREFIX + '/') return redirect(SCREEN_PREFIX);
    if (path === `${SCREEN_PREFIX}/style.css`) return styleSheet(CSS);
    if (req.method === 'POST' && crossSite(req))
      return page('Refused', html`<p class="error">A form sent from another site is refused.</p>`, 403);
    if (path === `${SCREEN_PREFIX}/sign-in` && req.method === 'POST') {
      const key = (await form(req)).get('key') ?? '';
      const verdict = o.signIn(key, req, env);
      if (verdict !== 'ok')
        return signInPage(
          verdict === 'wait'
            ? 'Too many failed attempts from this address; try again later.'
            : 'That is not the operator key.',
          verdict === 'wait' ? 429 : 401,
        );
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      const id = randomBytes(32).toString('base64url');
      sessions.set(id, { csrf: randomBytes(24).toString('base64url'), expires: o.now() + SESSION_MS });
      return redirect(
        SCREEN_PREFIX,
        `${COOKIE}=${id}; Path=${SCREEN_PREFIX}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}${secure ? '; Secure' : ''}`,
      );
    }
    const session = current(req);
    if (!session) return signInPage(undefined, req.method === 'GET' && path === SCREEN_PREFIX ? 200 : 401);
    if (req.method === 'GET' && path === SCREEN_PREFIX) {
      const all = await o.desk.list();
      const invited = all.find((b) => b.id === url.searchParams.get('invited'));
      const deleted = url.searchParams.get('deleted');
      const gone =
        deleted && !all.some((b) => b.id === deleted) && /^[A-Za-z0-9_-]{1,100}$/.test(deleted)
          ? `${deleted} is deleted; its host names are free.`
          : undefined;
      return listPage(
        all,
        session,
        undefined,
        200,
        invited ? `The owner of ${invited.id} was mailed a one-time setup link.` : gone,
      );
    }
    const exp = new RegExp(`^${SCREEN_PREFIX}/businesses/([^/]+)/export$`).exec(path);
    if (req.method === 'GET' && exp) {
      const id = decodeURIComponent(exp[1]!);
      try {
        const data = await o.desk.exportBusiness(id);
        return new Response(data, {
          headers: {
            'Content-Type': 'application/vnd.sqlite3',
            'Content-Disposition': `attachment; filename="${id.replace(/[^A-Za-z0-9_-]/g, '_')}.db"`,
            'Cache-Control': 'no-store',
          },
        });
      } catch (err) {
        return listPage(await o.desk.list(), session, (err as Error).message, 400);
      }
    }
    if (req.method !== 'POST')
      return page('Not found', html`<p>Nothing here. <a href="${SCREEN_PREFIX}">The businesses</a></p>`, 404);
    const fields = await form(req);
    const token = fields.get('csrf') ?? '';
    if (!sameText(token, session.csrf))
      return page(
        'Refused',
        html`<p class="error">This form has expired; go back to <a href="${SCREEN_PREFIX}">the businesses</a> and try again.</p>`,
        403,
      );
    if (path === `${SCREEN_PREFIX}/sign-out`) {
      sessions.delete(cookie(req, COOKIE)!);
      return redirect(
        SCREEN_PREFIX,
        `${COOKIE}=; Path=${SCREEN_PREFIX}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`,
      );
    }
    const m = new RegExp(
      `^${SCREEN_PREFIX}/businesses/([^/]+)/(suspend|resume|invite|domains|delete)(?:/([^/]+)/verify)?$`,
    ).exec(path);
    if (!m || (m[3] && m[2] !== 'domains'))
      return page('Not found', html`<p>Nothing here. <a href="${SCREEN_PREFIX}">The businesses</a></p>`, 404);
    const id = decodeURIComponent(m[1]!);
    try {
      if (m[2] === 'domains') {
        if (m[3]) await o.desk.verifyDomain(id, decodeURIComponent(m[3]));
        else await o.desk.addDomain(id, fields.get('domain')?.trim() ?? '');
      } else if (m[2] === 'delete') {
        await o.desk.remove(id, fields.get('confirm') === 'yes');
        return redirect(`${SCREEN_PREFIX}?deleted=${encodeURIComponent(id)}`);
      } else if (m[2] === 'suspend') {
        const reason = fields.get('reason')?.trim();
        await o.desk.suspend(id, reason ? reason : undefined);
      } else if (m[2] === 'invite') await o.desk.invite(id, fields.get('email')?.trim() ?? '');
      else await o.desk.resume(id);
    } catch (err) {
      return listPage(await o.desk.list(), session, (err as Error).message, 400);
    }
    return redirect(m[2] === 'invite' ? `${SCREEN_PREFIX}?invited=${encodeURIComponent(id)}` : SCREEN_PREFIX);
  };
}

function crossSite(req: Request): boolean {
  const site = req.headers.get('sec-fetch-site');
  return Boolean(site && site !== 'same-origin' && site !== 'none');
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

async function form(req: Request): Promise<URLSearchParams> {
  const text = await req.text();
  return new URLSearchParams(text.length > 10_000 ? '' : text);
}

const redirect = (to: string, setCookie?: string) =>
  new Response(null, {
    status: 303,
    headers: { Location: to, 'Cache-Control': 'no-store', ...(setCookie ? { 'Set-Cookie': setCookie } : {}) },
  });

function page(title: string, main: Html, status = 200): Response {
  return htmlResponse(
    documentShell({
      title: `${title} · usp-server operator`,
      styles: [`${SCREEN_PREFIX}/style.css`],
      main: html`<h1>${title}</h1>${main}`,
    }),
    { status },
  );
}

function signInPage(error: string | undefined, status: number): Response {
  return page(
    'Operator sign-in',
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}<form method="post" action="${SCREEN_PREFIX}/sign-in"><label for="key">Operator key</label><input id="key" name="key" type="password" autocomplete="current-password" required><p><button type="submit">Sign in</button></p></form>`,
    status,
  );
}

function listPage(all: OperatorBusiness[], s: Session, error?: string, status = 200, notice?: string): Response {
  const rows = all.map((b) => {
    const h = b.health as Record<string, number> | null | undefined;
    const health = !b.loaded ? 'not loaded' : h ? healthText(h) : 'its store did not answer';
    const action = `${SCREEN_PREFIX}/businesses/${encodeURIComponent(b.id)}/${b.status === 'suspended' ? 'resume' : 'suspend'}`;
    const control =
      b.status === 'suspended'
        ? html`<form method="post" action="${action}"><input type="hidden" name="csrf" value="${s.csrf}"><button type="submit">Resume ${b.id}</button></form>`
        : html`<form method="post" action="${action}"><input type="hidden" name="csrf" value="${s.csrf}"><label for="reason-${b.id}">Reason</label><input id="reason-${b.id}" name="reason" type="text" maxlength="300"><button type="submit">Suspend ${b.id}</button></form>`;
    const invite = html`<form method="post" action="${SCREEN_PREFIX}/businesses/${encodeURIComponent(b.id)}/invite"><input type="hidden" name="csrf" value="${s.csrf}"><label for="owner-${b.id}">Owner's email</label><input id="owner-${b.id}" name="email" type="email" autocomplete="off" required maxlength="254"><button type="submit">Invite the owner of ${b.id}</button></form>`;
    const pending = (b.pending_domains ?? []) as Array<{ domain: string; txt_name: string; txt_value: string }>;
    const domains = html`${pending.map(
      (p) =>
        html`<form method="post" action="${SCREEN_PREFIX}/businesses/${encodeURIComponent(b.id)}/domains/${encodeURIComponent(p.domain)}/verify"><input type="hidden" name="csrf" value="${s.csrf}"><p>${p.domain}, pending: publish a TXT record <code>${p.txt_name}</code> with the value <code>${p.txt_value}</code>.</p><button type="submit">Verify ${p.domain}</button></form>`,
    )}<form method="post" action="${SCREEN_PREFIX}/businesses/${encodeURIComponent(b.id)}/domains"><input type="hidden" name="csrf" value="${s.csrf}"><label for="domain-${b.id}">Custom domain</label><input id="domain-${b.id}" name="domain" type="text" required maxlength="253" autocomplete="off"><button type="submit">Add the domain to ${b.id}</button></form>`;
    const ref = encodeURIComponent(b.id);
    const removal = html`<p><a href="${SCREEN_PREFIX}/businesses/${ref}/export" download>Export the data of ${b.id}</a></p><form method="post" action="${SCREEN_PREFIX}/businesses/${ref}/delete"><input type="hidden" name="csrf" value="${s.csrf}"><input id="confirm-${b.id}" name="confirm" type="checkbox" value="yes"><label for="confirm-${b.id}" class="inline">Delete without an export</label><button type="submit">Delete ${b.id}</button></form>`;
    // On a phone each row is a card, each cell labelled by its column (data-label, the stylesheet's ::before).
    return html`<tr role="row"><td role="cell" data-label="Id">${b.id}</td><td role="cell" data-label="Status" class="${b.status === 'suspended' ? 'suspended' : ''}">${b.status}${b.reason ? html`: ${String(b.reason)}` : ''}</td><td role="cell" data-label="Host names">${(b.hosts as string[]).join(', ')}${domains}</td><td role="cell" data-label="Health">${health}</td><td role="cell" data-label="Action">${control}${invite}${removal}</td></tr>`;
  });
  return page(
    'Businesses',
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}${notice ? html`<p role="status">${notice}</p>` : ''}<div class="wide"><table role="table"><caption>Every hosted business, its status and health</caption><thead role="rowgroup"><tr role="row"><th role="columnheader" scope="col">Id</th><th role="columnheader" scope="col">Status</th><th role="columnheader" scope="col">Host names</th><th role="columnheader" scope="col">Health</th><th role="columnheader" scope="col">Action</th></tr></thead><tbody role="rowgroup">${rows}</tbody></table></div><form method="post" action="${SCREEN_PREFIX}/sign-out"><input type="hidden" name="csrf" value="${s.csrf}"><p><button type="submit">Sign out</button></p></form>`,
    status,
  );
}

function healthText(h: Record<string, number>): string {
  return [
    `${h.bookings_today} booking${h.bookings_today === 1 ? '' : 's'} today`,
    `${h.failing_webhook_deliveries} failing webhook deliveries`,
    `mail: ${h.mail_failed} failed, ${h.mail_queued} queued`,
    `${h.stale_calendars} stale calendar${h.stale_calendars === 1 ? '' : 's'}`,
  ].join('; ');
}
