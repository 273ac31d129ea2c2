/**
 * The commands by name, with the one line the global help prints for each and how to load its
 * code: `usp-server --help` (and a mistyped command or flag) answers from this table alone, and a
 * command's module (with the server, its stores and adapters behind it) is imported only when that
 * command runs or prints its own help.
 */
import type { Command } from './flags.js';

export interface CommandEntry {
  name: string;
  /** One line for the global help. */
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    summary: 'write a business file for a new business (asks, or takes flags)',
    load: async () => (await import('./init.js')).initCommand,
  },
  {
    name: 'serve',
    summary: 'run the business over HTTP (REST and MCP)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'mcp',
    summary: 'speak MCP over stdio, for desktop assistants',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'bookings',
    summary: 'act on bookings as the business (list, get, confirm, start, complete, no-show, cancel, disputes)',
    load: async () => (await import('./bookings.js')).bookingsCommand,
  },
  {
    name: 'webhooks',
    summary: 'the webhook delivery log; retry failed deliveries',
    load: async () => (await import('./webhooks.js')).webhooksCommand,
  },
  {
    name: 'keys',
    summary: 'webhook signing keys (list, rotate)',
    load: async () => (await import('./keys.js')).keysCommand,
  },
  {
    name: 'validate',
    summary: 'check a business file and exit',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: 'import',
    summary: 'store a business file as the definition in the database',
    load: async () => (await import('./catalog.js')).importCommand,
  },
  {
    name: 'export',
    summary: 'print the stored definition as a business file',
    load: async () => (await import('./catalog.js')).exportCommand,
  },
  {
    name: 'hash-key',
    summary: 'print the sha-256 digest of an API key',
    load: async () => (await import('./hash-key.js')).hashKeyCommand,
  },
  {
    name: 'host',
    summary: 'host many businesses in one process, each at its own host name',
    load: async () => (await import('./host.js')).hostCommand,
  },
  {
    name: 'registry',
    summary: 'run a discovery registry (spec 6), or list its registrations',
    load: async () => (await import('./registry.js')).registryCommand,
  },
  {
    name: 'admin-user',
    summary: 'dashboard accounts for the business (add)',
    load: async () => (await import('./admin-user.js')).adminUserCommand,
  },
  {
    name: 'conformance',
    summary: 'run the USP conformance suite against a server',
    load: async () => (await import('./conformance.js')).conformanceCommand,
  },
  {
    name: 'connect',
    summary: 'front USP businesses over stdio MCP, as a platform, for a desktop assistant',
    load: async () => (await import('./connect.js')).connectCommand,
  },
];
