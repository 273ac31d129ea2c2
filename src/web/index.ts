export { MalformedBody, readForm } from './form.js';
export { CSRF_COOKIE, csrfFor, csrfOk, isHttps, readCookie, sameText } from './csrf.js';
export { contentSecurityPolicy, documentShell, errorCard, escapeHtml, html, htmlResponse, pageHeaders, raw, styleSheet, type Html } from './html.js';
