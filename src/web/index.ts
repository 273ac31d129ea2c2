export { MalformedBody, readForm } from './form.js';
export { CSRF_COOKIE, csrfFor, csrfOk, readCookie, sameText } from './csrf.js';
