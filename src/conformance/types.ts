/**
 * The vocabulary of the conformance suite: a check names the spec clause it tests and the level of
 * that clause (MUST or SHOULD), and answers PASS, FAIL or SKIP with a reason. A check is a client of
 * a USP server: it sees only what the wire shows a platform.
 */
import type { RestClient } from '../client/index.js';
import type { McpClient } from '../client/index.js';
import type { SpecArtifacts } from './spec.js';
import type { SuitePlatform } from './platform.js';

export type Level = 'MUST' | 'SHOULD';
export type Verdict = 'PASS' | 'FAIL' | 'SKIP';

export interface CheckResult {
  id: string;
  section: string;
  clause: string;
  level: Level;
  verdict: Verdict;
  reason: string;
}

/** Thrown inside a check: the verdict it names, with its reason. */
export class Outcome extends Error {
  constructor(
    readonly verdict: Verdict,
    reason: string,
  ) {
    super(reason);
  }
}

export const fail = (reason: string): never => {
  throw new Outcome('FAIL', reason);
};
export const skip = (reason: string): never => {
  throw new Outcome('SKIP', reason);
};
export function expectThat(cond: unknown, reason: string): asserts cond {
  if (!cond) fail(reason);
}

export interface SuiteOptions {
  /** The business's base URL (its REST endpoint, or where `/.well-known/usp` is served). */
  url: string;
  /** Folder of the official artifacts; null: schema checks are skipped with a note. */
  specDir: string | null;
  /** Writes are allowed against a business that is not a sandbox (it books only what it cancels). */
  allowWrites: boolean;
  /** An MCP server started as a child process and spoken to over stdio. */
  stdio?: string;
  /** Check the registry role too. */
  registry: boolean;
  /** Concurrent requests in the race checks. */
  raceWidth: number;
  /** Per-request deadline, milliseconds. */
  timeoutMs: number;
  /** A browser platform's origin the business allows (CORS), checked by cors.allowed-origin. */
  origin?: string;
  /** Run only the checks with these ids (or id prefixes ending in '.'); default every check. */
  only?: readonly string[];
}

/** What every check sees: the clients, the profile as fetched, the artifacts and scratch state. */
export interface CheckContext {
  options: SuiteOptions;
  rest: RestClient;
  /** The MCP door when the profile advertises one (or `--stdio` was given), else null. */
  mcp: McpClient | null;
  spec: SpecArtifacts | null;
  /** The business profile as served at /.well-known/usp (null when it could not be read). */
  profile: Record<string, any> | null;
  /** The business runs as a sandbox (its authorization policy says privileged calls need no authentication). */
  sandbox: boolean;
  /** Writes are allowed: a sandbox, or `--allow-writes`. */
  writes: boolean;
  /** The platform the suite plays (its own key and loopback profile), when it could start one. */
  platform: SuitePlatform;
  /** Cleanups registered by checks that made something (bookings to cancel, holds to release). */
  cleanups: Array<() => Promise<void>>;
  /** Facts one check finds for later ones (a bookable slot, the business's zone). */
  facts: Map<string, unknown>;
}

export interface Check {
  id: string;
  /** The report section (discovery, envelope, holds, ...). */
  section: string;
  /** The spec clause, e.g. "8.4" or "9.2.4 item 8". */
  clause: string;
  level: Level;
  /** One line: what is checked. */
  title: string;
  /** This check makes bookings or holds (skipped against a live business without --allow-writes). */
  writes?: boolean;
  run(ctx: CheckContext): Promise<string | void>;
}
