/**
 * The business's dashboard: server-rendered pages at /admin over the admin operations, called
 * through the pipeline as the signed-in business user (never the store). One file per screen
 * (today, calendar, booking, time off, waitlists, webhooks, API keys, audit), each with its view
 * model (views.ts) and written with the web kit's `html` template, in one layout with one error
 * page (layout.ts).
 *
 * No script at all: every screen is a page and every action a form, so the policy forbids script
 * outright (`default-src 'none'`), styles come from our origin only, nothing may frame the pages,
 * and forms post only to us. Sessions are a HttpOnly, SameSite=Strict cookie (Secure over https);
 * every form carries the session's CSRF token (the login form a pre-session one, double-submitted).
 * A new platform key's secret is only ever in the body of the POST that made it (never a URL or a
 * redirect), and every page is `no-store`.
 */
import { Hono, type Context } from 'hono';
import type { BusinessScope, Pipeline, ScopeResolver } from '../../operations/index.js';
import { html, styleSheet } from '../../web/index.js';
import { mountApiKeys } from './api-keys.js';
import { mountAudit } from './audit.js';
import { mountMailPreviews, type MailPreviewView } from './mail-previews.js';
import { mountBooking } from './booking.js';
import { mountCalendar } from './calendar.js';
import { mountCalendars } from './calendars.js';
import { mountResourceCalendars } from './resource-calendars.js';
import { screens, type Env } from './kit.js';
import { DASHBOARD_CSS_PATH } from './layout.js';
import { mountSignIn, type DashboardSessionGate } from './sign-in.js';
import { DASHBOARD_CSS } from './style.js';
import { mountTimeOff } from './time-off.js';
import { mountToday } from './today.js';
import { mountWaitlists } from './waitlists.js';
import { mountWebhooks } from './webhooks.js';
import { mountCatalog } from './catalog.js';
import { mountFrontDesk } from './front-desk.js';
import { mountBusiness } from './business.js';

/** The dashboard's paths: /admin itself, its screens under /admin/ui, login, logout, the first account's setup and its style sheet. The admin API keeps the rest of /admin. */
export function isDashboardRequest(_req: Request, path: string): boolean {
  return (
    path === '/admin' ||
    path === '/admin/' ||
    path === '/admin/login' ||
    path === '/admin/logout' ||
    path === '/admin/setup' ||
    path.startsWith('/admin/ui/') ||
    path === DASHBOARD_CSS_PATH
  );
}

/** `gate`: the session lookup (a read); `clientAddress`: who signs in, for the backoff (the server's one resolver, trusted proxies honoured). */
export function createDashboard(deps: {
  pipeline: Pipeline;
  /** The business a request is for: every screen shows that one's latest snapshot. */
  scopeOf: ScopeResolver<BusinessScope>;
  gate: DashboardSessionGate;
  clientAddress?: (req: Request, env: unknown) => string | undefined;
  mailPreview?: () => MailPreviewView[];
}): Hono<Env> {
  const s = screens(deps.pipeline, deps.scopeOf);
  const app = new Hono<Env>();
  app.use((c, next) => s.within(c, next));
  // A fault (a form that cannot be read, anything unexpected) goes to the host, which answers it in this door's page and logs it.
  app.onError((err) => {
    throw err;
  });
  app.get(DASHBOARD_CSS_PATH, () => styleSheet(DASHBOARD_CSS));
  // The session gate: every screen mounted after it needs a session, and every form its CSRF token.
  mountSignIn(app, {
    pipeline: deps.pipeline,
    scopeOf: deps.scopeOf,
    gate: deps.gate,
    screens: s,
    clientAddress: deps.clientAddress,
  });
  for (const mount of [
    mountToday,
    mountCalendar,
    mountBooking,
    mountTimeOff,
    mountWaitlists,
    mountWebhooks,
    mountApiKeys,
    mountAudit,
    mountCatalog,
    mountFrontDesk,
    mountCalendars,
    mountBusiness,
    mountResourceCalendars,
  ])
    mount(app, s);
  if (deps.mailPreview) mountMailPreviews(app, s, deps.mailPreview);
  app.notFound((c) =>
    c.get('session')
      ? s.view(c as Context<Env>, 'Not found', '', html`<h1>Not found</h1>`, 404)
      : c.redirect('/admin/login', 303),
  );
  return app;
}
