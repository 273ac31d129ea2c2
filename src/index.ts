/**
 * What the usp-server package exports (`main` in package.json points at the built copy of this
 * file). The package is first a command (`usp-server`, bin/usp-server.js); embedding it is this small
 * surface: compose a server from options and a business definition, and read a business file with its
 * errors reported by path. Everything else under src/ is internal and may change between versions;
 * test/architecture/public-surface.test.ts pins this list.
 */
export {
  createUspServer,
  consoleLogger,
  parseBusinessFile,
  loadBusinessFile,
  BusinessFileError,
  businessFileJsonSchema,
} from './server/index.js';
export type { ServerOptions, UspServer, SecurityOptions, BusinessFileIssue } from './server/index.js';
