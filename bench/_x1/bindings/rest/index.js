export { createRestApp, parseAgent } from './app.js';
export { buildOpenApi } from './openapi.js';
export { REST_ERRORS, problemBody, problemType, PROBLEM_BASE } from './problems.js';
//# sourceMappingURL=index.js.map