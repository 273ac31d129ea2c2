/**
 * The buyer's account pages, as HTML: sign in, create an account (with a one-time code), allow an
 * assistant (consent), and the account page listing linked assistants. Rendering only: no script,
 * nothing from another origin, every field labelled, one <main> with one <h1>, focus order = reading
 * order; the door decides what to show and sets the security headers. Written with the web kit's
 * `html` template, so every value is escaped.
 */
import { documentShell, errorCard, html, type Html } from '../web/index.js';

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

export interface PageParts {
  title: string;
  business: string;
  body: Html;
}

export function layout(p: PageParts): Html {
  return documentShell({
    title: `${p.title} · ${p.business}`,
    styles: [BUYER_CSS_PATH, ACCOUNT_CSS_PATH],
    main: html`<p class="biz">${p.business}</p>${p.body}`,
  });
}

const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;
const errorBox = (message?: string) =>
  message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : '';
const described = (message?: string) => (message ? html` aria-describedby="form-error"` : '');

export function loginPage(o: {
  action: string;
  registerHref: string;
  csrf: string;
  email?: string;
  error?: string;
  client?: string;
}): Html {
  const lead = o.client
    ? html`<p>Sign in to let <strong>${o.client}</strong> book for you.</p>`
    : html`<p>Sign in to see the assistants linked to your account.</p>`;
  return html`<h1>Sign in</h1>${lead}<div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${o.action}">${csrfField(o.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${o.email ?? ''}"${described(o.error)}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"${described(o.error)}>
<button class="primary" type="submit">Sign in</button></form>
<p class="switch"><a href="/account/forgot">Forgot password?</a></p>
<p class="switch">New here? <a href="${o.registerHref}">Create an account</a></p></div>`;
}

export function registerPage(o: {
  action: string;
  loginHref: string;
  csrf: string;
  name?: string;
  email?: string;
  error?: string;
}): Html {
  return html`<h1>Create an account</h1><p>We send a one-time code to your email to confirm it.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${o.action}">${csrfField(o.csrf)}
<label for="name">Your name</label><input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${o.name ?? ''}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${o.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least 10 characters.</p>
<button class="primary" type="submit">Continue</button></form>
<p class="switch">Already have an account? <a href="${o.loginHref}">Sign in</a></p></div>`;
}

export function codePage(o: { action: string; csrf: string; signup: string; email: string; error?: string }): Html {
  return html`<h1>Check your email</h1><p>If <strong>${o.email}</strong> can be used for a new account, a 6-digit code is on its way. It is valid for 15 minutes.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${o.action}">${csrfField(o.csrf)}<input type="hidden" name="signup" value="${o.signup}">
<label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required maxlength="6"${described(o.error)}>
<button class="primary" type="submit">Create account</button></form></div>`;
}

export const SCOPE_WORDS: Record<string, { title: string; detail: string }> = {
  'usp:booking': { title: 'Book for you', detail: 'Hold times, and make, change and cancel bookings in your name.' },
  'usp:history': {
    title: 'See your bookings',
    detail: 'List and manage your bookings here, including ones made elsewhere.',
  },
  openid: { title: 'Know it is you', detail: 'Receive an identifier for your account here (not your email or name).' },
  offline_access: { title: 'Stay linked', detail: 'Keep this access until you remove it, without asking you again.' },
};

export function consentPage(o: {
  action: string;
  csrf: string;
  client: string;
  clientHost?: string;
  scopes: string[];
  email: string;
}): Html {
  const listed = o.scopes
    .map((s) => SCOPE_WORDS[s] ?? { title: s, detail: '' })
    .map((w) => html`<li><strong>${w.title}</strong>${w.detail}</li>`);
  const items = listed.length > 0 ? listed : html`<li><strong>Nothing more</strong>Only what you already allowed.</li>`;
  const back = o.clientHost ? html`<p class="note">Either way, you go back to ${o.clientHost}.</p>` : '';
  return html`<h1>Allow ${o.client}?</h1><p>Signed in as ${o.email}. <strong>${o.client}</strong> asks to:</p><div class="card"><ul class="scopes">${items}</ul>
<p class="note">You can remove this access at any time from your account page.</p>
<form method="post" action="${o.action}" class="choices">${csrfField(o.csrf)}<button class="primary" type="submit" name="decision" value="allow">Allow</button><button class="secondary" type="submit" name="decision" value="deny">Deny</button></form>${back}</div>`;
}

export interface LinkedView {
  grantId: string;
  client: string;
  scopes: string[];
  since: string;
}

export function accountPage(o: {
  csrf: string;
  name: string;
  email: string;
  linked: LinkedView[];
  notice?: string;
  data?: Html;
}): Html {
  const rows = o.linked.length
    ? html`<ul class="linked">${o.linked.map(
        (l) =>
          html`<li><span><strong>${l.client}</strong><br><span class="note">${l.scopes.map((s) => SCOPE_WORDS[s]?.title ?? s).join(' · ')} · since ${l.since}</span></span><form method="post" action="/account/revoke">${csrfField(o.csrf)}<input type="hidden" name="grant" value="${l.grantId}"><button class="secondary" type="submit" aria-label="Remove access for ${l.client}">Remove</button></form></li>`,
      )}</ul>`
    : html`<p>No assistant is linked to your account.</p>`;
  const notice = o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : '';
  return html`<h1>Your account</h1>${notice}<div class="card"><dl><dt>Name</dt><dd>${o.name}</dd><dt>Email</dt><dd>${o.email}</dd></dl></div>
<div class="card"><h2>Linked assistants</h2>${rows}</div>${o.data ?? ''}
<form method="post" action="/account/logout">${csrfField(o.csrf)}<button class="secondary" type="submit">Sign out</button></form>`;
}

/** A page that only says something (an expired form, a refusal): the web kit's one error card. */
export function messagePage(o: { heading: string; text: string }): Html {
  return errorCard({ heading: o.heading, text: o.text });
}
