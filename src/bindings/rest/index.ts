export { createRestApp } from './app.js';
export type { RestApp } from './app.js';
export type { RestAppOptions } from './app.js';
export { buildOpenApi } from './openapi.js';
export { restCors } from './cors.js';
