/** The composition root as other code embeds it: build a server from options, read a business file. */
export { createUspServer, consoleLogger } from './compose.js';
export type { ServerOptions, UspServer } from './compose.js';
export type { SecurityOptions } from './security-wiring.js';
export { parseBusinessFile, loadBusinessFile, BusinessFileError, businessFileJsonSchema } from './business-file.js';
export type { BusinessFileIssue } from './business-file.js';
