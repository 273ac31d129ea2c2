export { MalformedBody, readForm } from './form.js';
