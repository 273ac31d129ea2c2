/**
 * The HTML doors' one way to write a page: Hono's `html` template (every interpolated value is
 * escaped unless it is itself markup made by the template or by `raw`), one Content-Security-Policy
 * and set of page headers, one document shell and one error card. The dashboard, the buyer's pages
 * and the OAuth pages differ only in what they pass in (style sheets, a header, form-action targets).
 */
import { html as honoHtml, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** Markup: a string the template made (or `raw` vouched for), which another template does not escape again. */
export type Html = HtmlEscapedString;
export { raw };

/**
 * Hono's `html` template, kept synchronous: the pages never interpolate a promise, so a page is
 * markup at once (a promise would be a programming error, and fails loudly rather than render late).
 * Strings and other values are escaped (`& < > " '`); arrays are joined; `null`, `undefined` and
 * booleans render as nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const out = honoHtml(strings, ...values);
  if (out instanceof Promise) throw new TypeError('a page interpolated a promise');
  return out;
}

/** One value as escaped text (the template's escaping), for code that still builds pages as plain strings. */
export function escapeHtml(value: unknown): string {
  return html`${value === null || value === undefined ? '' : String(value)}`.toString();
}

/**
 * The pages' policy: no script, nothing from another origin (styles and images from ours only),
 * no framing, no <base>, and forms that post only to us and to the `formTargets` origins a door
 * names (the OAuth client's or the platform's, where a page sends the buyer on). `framesOwn`: the
 * page frames documents of ours (the dashboard's mail previews), and nothing else.
 */
export function contentSecurityPolicy(o: { formTargets?: readonly string[]; framesOwn?: boolean } = {}): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self'${(o.formTargets ?? []).map((t) => ` ${t}`).join('')}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(o.framesOwn ? ["frame-src 'self'"] : []),
  ].join('; ');
}

/** The policy of a document made to be framed by our own page (a mail's HTML): inline styles only, sandboxed, no forms, nothing fetched. */
const FRAMED_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; sandbox; frame-ancestors 'self'";

/**
 * Every page's headers: the policy above, never cached, no referrer, not framed, not sniffed.
 * `framed`: a document only our own pages frame, under the framed policy.
 */
export function pageHeaders(
  o: { formTargets?: readonly string[]; framesOwn?: boolean; framed?: boolean } = {},
): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': o.framed ? FRAMED_POLICY : contentSecurityPolicy(o),
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': o.framed ? 'SAMEORIGIN' : 'DENY',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** A page as a Response with pageHeaders() (its headers stay mutable: a door appends Set-Cookie, Retry-After). */
export function htmlResponse(
  page: Html | string,
  o: { status?: number; formTargets?: readonly string[] } = {},
): Response {
  return new Response(page.toString(), { status: o.status ?? 200, headers: pageHeaders(o) });
}

/** A door's style sheet, from our origin (the policy forbids inline styles); cached for an hour. */
export function styleSheet(css: string): Response {
  return new Response(css, {
    headers: {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/**
 * The document around every page: language, viewport, no referrer, the title, the door's style
 * sheets (from our origin: the policy forbids inline styles), an optional header and one <main>.
 */
export function documentShell(o: {
  title: string;
  styles: readonly string[];
  header?: Html;
  main: Html | string;
}): Html {
  const main = typeof o.main === 'string' ? raw(o.main) : o.main;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${o.title}</title>${o.styles.map((href) => html`<link rel="stylesheet" href="${href}">`)}</head><body>${o.header}<main>${main}</main></body></html>`;
}

/**
 * The error card every door shows when it says no: a heading (the reason, in the door's words),
 * an optional sentence and an optional way back. `text` may be markup (a sentence with a link).
 */
export function errorCard(o: { heading: string; text?: string | Html; back?: { href: string; label: string } }): Html {
  return html`<section class="card"><h1>${o.heading}</h1>${o.text === undefined ? '' : html`<p>${o.text}</p>`}${o.back ? html`<p><a href="${o.back.href}">${o.back.label}</a></p>` : ''}</section>`;
}
