/**
 * The dashboard's one layout and one error page: the web kit's document shell with the dashboard's
 * header (the business's name, the screens' navigation and the log-out form once signed in), and
 * the web kit's error card inside it.
 */
import type { ProtocolError } from '../../operations/index.js';
import { documentShell, errorCard, html, htmlResponse, type Html } from '../../web/index.js';

export const DASHBOARD_CSS_PATH = '/admin/assets/dashboard.css';

const NAV: ReadonlyArray<readonly [href: string, label: string]> = [
  ['/admin', 'Today'],
  ['/admin/ui/calendar', 'Calendar'],
  ['/admin/ui/services', 'Services'],
  ['/admin/ui/staff', 'Staff & hours'],
  ['/admin/ui/locations', 'Locations'],
  ['/admin/ui/categories', 'Categories'],
  ['/admin/ui/business', 'Business & settings'],
  ['/admin/ui/walk-in', 'Walk-in'],
  ['/admin/ui/clients', 'Clients'],
  ['/admin/ui/calendars', 'Calendar sync'],
  ['/admin/ui/time-off', 'Time off & hours'],
  ['/admin/ui/waitlists', 'Waitlists'],
  ['/admin/ui/mail', 'Mail'],
  ['/admin/ui/webhooks', 'Webhooks'],
  ['/admin/ui/api-keys', 'API keys'],
  ['/admin/ui/audit', 'Audit log'],
];

/** Who is signed in, for the header's navigation and log-out form; absent on the sign-in and error pages. */
export interface SignedIn {
  csrf: string;
  email: string;
  /** The screen's own path, marked current in the navigation. */
  current?: string;
}

/** A whole dashboard page: `main` is markup the screen built with the web kit's `html` template. */
export function layout(title: string, bizName: string, main: Html, who?: SignedIn): Html {
  const nav = who
    ? html`<nav aria-label="Dashboard">${NAV.map(([href, label]) => html`<a href="${href}"${href === who.current ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
<form class="inline" method="post" action="/admin/logout"><input type="hidden" name="_csrf" value="${who.csrf}"><button type="submit" title="Signed in as ${who.email}">Log out</button></form>`
    : '';
  const header = html`<header><div class="bar"><span class="biz">${bizName || 'usp-server'}</span>${nav}</div></header>`;
  return documentShell({
    title: bizName ? `${title} · ${bizName}` : title,
    styles: [DASHBOARD_CSS_PATH],
    header,
    main,
  });
}

/** A page as a Response with the web kit's page headers (no script, forms post only to us, no-store). */
export function page(body: Html, status = 200): Response {
  return htmlResponse(body, { status });
}

/** The dashboard's error page: the web kit's error card in the layout, with a way back unless `back` is false. */
export function errorPage(
  status: number,
  o: { title: string; heading: string; text?: string | Html; bizName?: string; back?: false },
): Response {
  const back = o.back === false ? undefined : { href: '/admin', label: 'Back to the dashboard' };
  return page(layout(o.title, o.bizName ?? '', errorCard({ heading: o.heading, text: o.text, back })), status);
}

/** How the dashboard, and the host on its behalf, says no: the error page with the error's message. */
export function dashboardRefusal(status: number, err: ProtocolError): Response {
  return errorPage(status, { title: 'Error', heading: 'Something went wrong', text: err.message });
}
