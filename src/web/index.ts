export { MalformedBody, readForm } from './form.js';
export { CSRF_COOKIE, csrfFor, csrfOk, isHttps, readCookie, sameText } from './csrf.js';
export { parseAgent } from './agent.js';
export { faultText } from './fault.js';
export { PROBLEM_BASE, REST_ERRORS, TYPED_BY_DETAIL, problemBody, problemResponse, problemType } from './problems.js';
export {
  contentSecurityPolicy,
  documentShell,
  errorCard,
  escapeHtml,
  html,
  htmlResponse,
  pageHeaders,
  raw,
  styleSheet,
  type Html,
} from './html.js';
export { jsonText } from './json.js';
