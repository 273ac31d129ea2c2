/**
 * What every dashboard screen shares: running an admin operation as the signed-in user (through
 * the pipeline, never the store), the page around a screen, the CSRF field, the flash message after
 * a form and the redirect that carries it, and the business's clock faces (times in its zone).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac } from 'node:crypto';
import type { Context, Hono } from 'hono';
import {
  formatMoney,
  operationForDashboard,
  suspensionSentence,
  type Business,
  type BusinessScope,
  type DashboardAction,
  type Pipeline,
  type ScopeResolver,
} from '../../operations/index.js';
import { html, sameText, type Html } from '../../web/index.js';
import { doneWords, errorWords, type DoneCode } from './flash.js';
import { layout, page } from './layout.js';
import type { DashboardSession } from '../../operations/index.js';
export type { DashboardSession };

export type Env = { Variables: { session: DashboardSession; token: string } };
export type DashboardApp = Hono<Env>;
export type ScreenContext = Context<Env>;

/** An admin operation's result, as the pipeline answers it. */
export type RunResult = Awaited<ReturnType<Pipeline['execute']>>;

/** A flash message's seal: only the server, knowing the session's CSRF token, makes one. */
const seal = (key: string, code: string, detail: string) =>
  createHmac('sha256', key).update(`${code}\n${detail}`).digest('base64url');

/**
 * The screens' toolkit, made once per dashboard. What it says about the business is the business of
 * the request being answered: the door resolves it per request (`Screens.within`) and every member
 * reads that business's latest snapshot, never one held since the dashboard was made.
 */
export interface Screens {
  readonly biz: Business;
  bizName: string;
  zone: string;
  /** The business's currency (ISO 4217), every price is in it. */
  currency: string;
  /** An amount in minor units of the business's currency as people read it ("$65.00"). */
  money(minor: number): string;
  /** Run an admin operation as the signed-in user, through the pipeline like any other call. */
  run(c: ScreenContext, action: DashboardAction, input: Record<string, unknown>): Promise<RunResult>;
  /** A screen's page: the layout with the signed-in header, `current` marked in the navigation. */
  view(c: ScreenContext, title: string, current: string, main: Html, status?: number): Response;
  /** The session's CSRF token as a form's hidden field. */
  csrfField(c: ScreenContext): Html;
  /** What the last form did, from the redirect's code (our words, or the operation's sealed words). */
  flash(c: ScreenContext): Html;
  /** Back to `to` after a form, with what happened as a code (and the operation's words, sealed). */
  back(c: ScreenContext, to: string, res: RunResult, done: DoneCode, doneDetail?: string): Response;
  /** Back to `to` with a form refused before any operation ran (an amount that is not one), in `why`'s words. */
  refuse(c: ScreenContext, to: string, why: string): Response;
  timeFmt: Intl.DateTimeFormat;
  dayFmt: Intl.DateTimeFormat;
  /** A local date as YYYY-MM-DD. */
  dateKey: Intl.DateTimeFormat;
  hourOf(ms: number): number;
  /** A day and time, as "Tue 1 Dec 09:30". */
  when(ms: number): string;
  resourceName(id: string): string;
  /** Bring `biz` up to the stored definition (a screen that shows the catalog, before it renders). */
  refresh(): Promise<void>;
  /** Answer `c` (the rest of the chain, `next`) as its business's dashboard. */
  within(c: ScreenContext, next: () => Promise<void>): Promise<void>;
}

/** The clock faces of one time zone. */
function faces(zone: string) {
  return {
    zone,
    timeFmt: new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hour12: false }),
    dayFmt: new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short' }),
    dateKey: new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  };
}

export function screens(pipeline: Pipeline, scopeOf: ScopeResolver<BusinessScope>): Screens {
  // The request's business, for the members that are not given the request (names, zone, money).
  const request = new AsyncLocalStorage<BusinessScope>();
  const scope = (): BusinessScope => {
    const s = request.getStore();
    if (!s) throw new Error('a dashboard screen ran outside a request');
    return s;
  };
  const current = () => scope().business.current();
  // The name and the zone follow the stored definition (the business may change them on its own screen).
  const clocks = new Map<string, ReturnType<typeof faces>>();
  const now = () => {
    const zone = current().zone;
    let clock = clocks.get(zone);
    if (!clock) clocks.set(zone, (clock = faces(zone)));
    return clock;
  };

  /**
   * The redirect after a form carries a code, and the operation's own words only with a seal made
   * with the session's CSRF token: the page shows our words for the code, or the sealed words, never
   * text a link could bring (a crafted /admin?error=... shows the generic sentence).
   */
  const sealedDetail = (c: ScreenContext, code: string) => {
    const detail = c.req.query('detail');
    return detail && sameText(seal(c.get('session').csrf, code, detail), c.req.query('seal') ?? '')
      ? detail
      : undefined;
  };

  return {
    get biz() {
      return current();
    },
    get bizName() {
      return current().def.business.name;
    },
    get zone() {
      return current().zone;
    },
    get currency() {
      return current().def.business.currency;
    },
    money: (minor) => formatMoney(minor, current().def.business.currency),
    run: (c, action, input) =>
      pipeline.execute(
        operationForDashboard(action),
        {
          input,
          trustedCaller: {
            principal: 'business',
            profile: null,
            business: true,
            authenticated: true,
            actor: `user:${c.get('session').email}`,
          },
          door: 'dashboard',
          correlationId: (c.env as { correlationId?: string } | undefined)?.correlationId,
        },
        scopeOf(c.req.raw),
      ),
    view: (c, title, here, main, status = 200) => {
      // The operator suspended the business: every screen says so first (its people keep working: reads, cancellations, edits).
      const held = current().suspended;
      const body = held
        ? html`<p class="flash warn" role="alert">Suspended by the operator: ${suspensionSentence(held)}</p>${main}`
        : main;
      return page(
        layout(title, current().def.business.name, body, {
          current: here,
          csrf: c.get('session').csrf,
          email: c.get('session').email,
        }),
        status,
      );
    },
    csrfField: (c) => html`<input type="hidden" name="_csrf" value="${c.get('session').csrf}">`,
    flash: (c) => {
      const ok = c.req.query('ok');
      const bad = c.req.query('error');
      const done = ok ? doneWords(ok) && (sealedDetail(c, ok) ?? doneWords(ok)) : undefined;
      // `warn` only styles the sealed words as a warning; it brings no text of its own.
      const warn = c.req.query('warn') === '1';
      return html`${done ? html`<p class="flash ${warn ? 'warn' : 'ok'}" role="${warn ? 'alert' : 'status'}">${done}</p>` : ''}${
        bad ? html`<p class="flash bad" role="alert">${sealedDetail(c, bad) ?? errorWords(bad)}</p>` : ''
      }`;
    },
    back: (c, to, res, done, doneDetail) => {
      const u = new URL(to, 'http://x');
      const refused = res.ok ? res.messages.filter((m) => m.type === 'error') : [];
      const error = !res.ok
        ? { code: res.error.code, detail: res.error.message }
        : refused.length
          ? { code: refused[0].code, detail: refused.map((m) => m.content).join(' ') }
          : undefined;
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
    },
    refuse: (c, to, why) => {
      const u = new URL(to, 'http://x');
      const detail = why.slice(0, 1500);
      u.searchParams.set('error', 'validation_error');
      u.searchParams.set('detail', detail);
      u.searchParams.set('seal', seal(c.get('session').csrf, 'validation_error', detail));
      return new Response(null, { status: 303, headers: { Location: u.pathname + u.search } });
    },
    get timeFmt() {
      return now().timeFmt;
    },
    get dayFmt() {
      return now().dayFmt;
    },
    get dateKey() {
      return now().dateKey;
    },
    hourOf: (ms) => Number(now().timeFmt.format(ms).slice(0, 2)),
    when: (ms) => `${now().dayFmt.format(ms)} ${now().timeFmt.format(ms)}`,
    resourceName: (id) => current().resources.get(id)?.name ?? id,
    refresh: () => scope().business.refresh(),
    within: (c, next) => request.run(scopeOf(c.req.raw), next),
  };
}

/** A state as a coloured badge (`in_progress` reads "in progress"). */
export const badge = (s: string): Html => html`<span class="state s-${s}">${s.replace('_', ' ')}</span>`;

export const buyerName = (b: { buyer: { first_name: string; last_name: string } }): string =>
  `${b.buyer.first_name} ${b.buyer.last_name}`;

/** A flash-styled refusal in a screen (the operation's own message, escaped). */
export const refusal = (text: string | undefined): Html => html`<p class="flash bad" role="alert">${text}</p>`;

/** A local date at midday UTC, for formatting a date (not an instant) in the business's zone. */
export const middayOf = (date: string): number => Date.parse(`${date}T12:00:00Z`);

/** A stored instant in the business's zone ("Tue 1 Dec 09:30"), its ISO form kept in `datetime`; text that is no instant is shown as it is. */
export const stamp = (s: Pick<Screens, 'when'>, iso: string): Html => {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? html`<time datetime="${iso}">${s.when(ms)}</time>` : html`${iso}`;
};
