export { createRestApp, parseAgent, problemResponse } from './app.js';
export type { RestAppOptions } from './app.js';
export { buildOpenApi } from './openapi.js';
export { REST_ERRORS, problemBody, problemType, PROBLEM_BASE } from './problems.js';
export { restCors } from './cors.js';
