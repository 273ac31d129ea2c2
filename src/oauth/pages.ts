/**
 * The buyer's account pages, as HTML: sign in, create an account (with a one-time code), allow an
 * assistant (consent), and the account page listing linked assistants. Rendering only: no script,
 * nothing from another origin, every field labelled, one <main> with one <h1>, focus order = reading
 * order; the door decides what to show and sets the security headers.
 */

export const ACCOUNT_CSS_PATH = '/assets/account-pages.css';
const BUYER_CSS_PATH = '/assets/buyer-pages.css';

/** Form controls on top of the buyer pages' look (served from our origin; no inline styles). */
export const ACCOUNT_CSS = `label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input[type=email],input[type=password],input[type=text]{font:inherit;width:100%;padding:.65rem .75rem;border:2px solid #6b6b70;border-radius:10px;min-height:48px;background:#fff;color:#1d1d1f}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #1a4fd6;outline-offset:2px}
.hint{font-size:.9rem;color:#4a4a4f;margin:.25rem 0 0}
.error{background:#fde4e4;color:#8a1414;border-radius:10px;padding:.7rem .9rem;margin:0 0 1rem;font-weight:600}
.notice{background:#e3f5e8;color:#0b5a24;border-radius:10px;padding:.7rem .9rem;margin:0 0 1rem}
form.stack{display:block}form.stack button{width:100%;margin-top:1.2rem}
.scopes li{margin:.5rem 0}.scopes strong{display:block}
.linked{list-style:none;padding:0;margin:0}.linked li{display:flex;justify-content:space-between;align-items:center;gap:1rem;border-top:1px solid #e4e4e8;padding:.8rem 0}
.linked li:first-child{border-top:0}.linked form{margin:0}
.choices{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1.2rem}.choices button{flex:1 1 10rem}
.switch{margin:1rem 0 0}`;

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface PageParts {
  title: string;
  business: string;
  body: string;
}

export function layout(p: PageParts): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(p.title)} · ${esc(p.business)}</title><link rel="stylesheet" href="${BUYER_CSS_PATH}"><link rel="stylesheet" href="${ACCOUNT_CSS_PATH}"></head><body><main><p class="biz">${esc(p.business)}</p>${p.body}</main></body></html>`;
}

const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${esc(token)}">`;
const errorBox = (message?: string) => (message ? `<p class="error" role="alert" id="form-error">${esc(message)}</p>` : '');
const described = (message?: string) => (message ? ' aria-describedby="form-error"' : '');

export function loginPage(o: { action: string; registerHref: string; csrf: string; email?: string; error?: string; client?: string }): string {
  const lead = o.client ? `<p>Sign in to let <strong>${esc(o.client)}</strong> book for you.</p>` : '<p>Sign in to see the assistants linked to your account.</p>';
  return `<h1>Sign in</h1>${lead}<div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${esc(o.action)}">${csrfField(o.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${esc(o.email ?? '')}"${described(o.error)}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"${described(o.error)}>
<button class="primary" type="submit">Sign in</button></form>
<p class="switch">New here? <a href="${esc(o.registerHref)}">Create an account</a></p></div>`;
}

export function registerPage(o: { action: string; loginHref: string; csrf: string; name?: string; email?: string; error?: string }): string {
  return `<h1>Create an account</h1><p>We send a one-time code to your email to confirm it.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${esc(o.action)}">${csrfField(o.csrf)}
<label for="name">Your name</label><input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${esc(o.name ?? '')}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${esc(o.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least 10 characters.</p>
<button class="primary" type="submit">Continue</button></form>
<p class="switch">Already have an account? <a href="${esc(o.loginHref)}">Sign in</a></p></div>`;
}

export function codePage(o: { action: string; csrf: string; signup: string; email: string; error?: string }): string {
  return `<h1>Check your email</h1><p>If <strong>${esc(o.email)}</strong> can be used for a new account, a 6-digit code is on its way. It is valid for 15 minutes.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${esc(o.action)}">${csrfField(o.csrf)}<input type="hidden" name="signup" value="${esc(o.signup)}">
<label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required maxlength="6"${described(o.error)}>
<button class="primary" type="submit">Create account</button></form></div>`;
}

export const SCOPE_WORDS: Record<string, { title: string; detail: string }> = {
  'usp:booking': { title: 'Book for you', detail: 'Hold times, and make, change and cancel bookings in your name.' },
  'usp:history': { title: 'See your bookings', detail: 'List and manage your bookings here, including ones made elsewhere.' },
  openid: { title: 'Know it is you', detail: 'Receive an identifier for your account here (not your email or name).' },
  offline_access: { title: 'Stay linked', detail: 'Keep this access until you remove it, without asking you again.' },
};

export function consentPage(o: { action: string; csrf: string; client: string; clientHost?: string; scopes: string[]; email: string }): string {
  const items =
    o.scopes
      .map((s) => SCOPE_WORDS[s] ?? { title: s, detail: '' })
      .map((w) => `<li><strong>${esc(w.title)}</strong>${esc(w.detail)}</li>`)
      .join('') || '<li><strong>Nothing more</strong>Only what you already allowed.</li>';
  const back = o.clientHost ? `<p class="note">Either way, you go back to ${esc(o.clientHost)}.</p>` : '';
  return `<h1>Allow ${esc(o.client)}?</h1><p>Signed in as ${esc(o.email)}. <strong>${esc(o.client)}</strong> asks to:</p><div class="card"><ul class="scopes">${items}</ul>
<p class="note">You can remove this access at any time from your account page.</p>
<form method="post" action="${esc(o.action)}" class="choices">${csrfField(o.csrf)}<button class="primary" type="submit" name="decision" value="allow">Allow</button><button class="secondary" type="submit" name="decision" value="deny">Deny</button></form>${back}</div>`;
}

export interface LinkedView {
  grantId: string;
  client: string;
  scopes: string[];
  since: string;
}

export function accountPage(o: { csrf: string; name: string; email: string; linked: LinkedView[]; notice?: string }): string {
  const rows = o.linked.length
    ? `<ul class="linked">${o.linked
        .map(
          (l) =>
            `<li><span><strong>${esc(l.client)}</strong><br><span class="note">${esc(l.scopes.map((s) => SCOPE_WORDS[s]?.title ?? s).join(' · '))} · since ${esc(l.since)}</span></span><form method="post" action="/account/revoke">${csrfField(o.csrf)}<input type="hidden" name="grant" value="${esc(l.grantId)}"><button class="secondary" type="submit" aria-label="Remove access for ${esc(l.client)}">Remove</button></form></li>`,
        )
        .join('')}</ul>`
    : '<p>No assistant is linked to your account.</p>';
  const notice = o.notice ? `<p class="notice" role="status">${esc(o.notice)}</p>` : '';
  return `<h1>Your account</h1>${notice}<div class="card"><dl><dt>Name</dt><dd>${esc(o.name)}</dd><dt>Email</dt><dd>${esc(o.email)}</dd></dl></div>
<div class="card"><h2>Linked assistants</h2>${rows}</div>
<form method="post" action="/account/logout">${csrfField(o.csrf)}<button class="secondary" type="submit">Sign out</button></form>`;
}

export function messagePage(o: { heading: string; text: string }): string {
  return `<h1>${esc(o.heading)}</h1><div class="card"><p>${esc(o.text)}</p></div>`;
}
