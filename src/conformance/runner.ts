/**
 * Running the suite: read the profile, start the suite's platform (its key, profiles and webhook
 * receiver), connect MCP when advertised (or `--stdio`), run every check in order, undo what the
 * checks made, and report: one line per check, a summary by section, or JSON. The run passes when
 * every MUST-level check passed (a SKIP is not a failure; a SHOULD failure is reported, not fatal).
 */
import { createPopKey, dpopProof } from '../client/index.js';
import { connectHttpMcp, connectStdioMcp, type McpClient } from '../client/index.js';
import { startPlatform } from './platform.js';
import { RestClient } from '../client/index.js';
import { loadSpec, type SpecArtifacts } from './spec.js';
import { Outcome, type Check, type CheckContext, type CheckResult, type SuiteOptions } from './types.js';
import { discoveryChecks, envelopeChecks, mappingChecks, mcpBinding } from './checks/discovery.js';
import { conditionalChecks, holdChecks, idempotencyChecks, lifecycleChecks, raceChecks } from './checks/writes.js';
import { protocolChecks } from './checks/protocol.js';
import { newerTextChecks } from './checks/newer.js';
import { transportChecks } from './checks/transport.js';
import { authChecks, webhookChecks } from './checks/auth.js';
import { registryChecks } from './checks/registry.js';
import { USP_ARTIFACTS, verdictOf, type RunTransport, type RunVerdict } from './verdict.js';

/** Every check, in the order they run. */
export const CHECKS: readonly Check[] = [
  ...discoveryChecks,
  ...envelopeChecks,
  ...mappingChecks,
  ...holdChecks,
  ...raceChecks,
  ...idempotencyChecks,
  ...conditionalChecks,
  ...lifecycleChecks,
  ...protocolChecks,
  ...newerTextChecks,
  ...transportChecks,
  ...authChecks,
  ...webhookChecks,
  ...registryChecks,
];

export interface SuiteReport {
  target: string;
  /** The transports the run used (REST, and MCP over Streamable HTTP or stdio, or none). */
  transport: RunTransport;
  notes: string[];
  results: CheckResult[];
  /** No MUST-level check failed (the exit status); `verdict` says whether every one also ran. */
  passed: boolean;
  verdict: RunVerdict;
}

async function readProfile(rest: RestClient): Promise<Record<string, any> | null> {
  try {
    const a = await rest.send('/.well-known/usp', { profile: null });
    return a.status === 200 && a.body && typeof a.body === 'object' ? a.body : null;
  } catch {
    return null;
  }
}

/** Run the suite: `onStart` hears the transports before the first check, `onResult` each check's result. */
export async function runSuite(
  options: SuiteOptions,
  onResult: (r: CheckResult) => void = () => {},
  onStart: (transport: RunTransport) => void = () => {},
): Promise<SuiteReport> {
  const notes: string[] = [];
  let spec: SpecArtifacts | null = null;
  if (options.specDir) {
    spec = loadSpec(options.specDir);
    notes.push(...spec.notes);
  } else
    notes.push(
      `the official USP artifacts were not found: schema checks are skipped (get them from ${USP_ARTIFACTS} and give --spec DIR)`,
    );

  const rest = new RestClient(options.url, '', options.timeoutMs);
  const profile = await readProfile(rest);
  if (!profile) notes.push(`no profile could be read at ${rest.url('/.well-known/usp')}`);
  const platform = await startPlatform(profile);
  rest.profile = platform.profile;
  const sandbox = profile?.authorization?.privileged_operations_require_authentication !== true;
  const proving = !sandbox && (profile?.authorization?.accepted_mechanisms ?? []).includes('platform_key_pop');

  let mcp: McpClient | null = null;
  let mcpTransport: string | null = null;
  try {
    if (options.stdio) {
      mcp = await connectStdioMcp(options.stdio, options.timeoutMs);
      mcpTransport = `stdio (${options.stdio})`;
    } else {
      const binding = profile ? mcpBinding({ profile } as CheckContext) : null;
      if (binding?.endpoint) {
        mcp = await connectHttpMcp(binding.endpoint, options.timeoutMs);
        mcpTransport = `Streamable HTTP ${binding.endpoint}`;
      }
    }
  } catch (err) {
    notes.push(`MCP could not be reached: ${(err as Error).message}`);
  }
  const transport: RunTransport = { rest: rest.url(''), mcp: mcpTransport };
  onStart(transport);

  const ctx: CheckContext = {
    options,
    rest,
    mcp,
    spec,
    profile,
    sandbox,
    writes: sandbox || options.allowWrites,
    platform,
    cleanups: [],
    facts: new Map(),
  };
  if (!ctx.writes)
    notes.push('a live business: checks that book or hold are skipped (--allow-writes books only what it cancels)');

  const results: CheckResult[] = [];
  try {
    const only = options.only;
    const selected = only
      ? CHECKS.filter((c) => only.some((o) => c.id === o || (o.endsWith('.') && c.id.startsWith(o))))
      : CHECKS;
    for (const check of selected) {
      // Each check acts as a platform key of its own (all on the suite's one profile, as a shared
      // platform profile is used): one check's writes never spend another's rate-limit allowance.
      if (proving) {
        const key = createPopKey();
        rest.authenticate = (method, url, headers) => ({ ...headers, DPoP: dpopProof(key, method, url) });
      }
      const r = await runOne(check, ctx);
      results.push(r);
      onResult(r);
    }
  } finally {
    for (const undo of ctx.cleanups.reverse()) await undo().catch(() => undefined);
    await mcp?.close().catch(() => undefined);
    await platform.close();
  }
  const passed = results.every((r) => r.level !== 'MUST' || r.verdict !== 'FAIL');
  // The registry's checks count only when the registry role was asked for (a business is not a registry).
  const counted = (id: string) => options.registry || !id.startsWith('registry.');
  const verdict = verdictOf(
    results.filter((r) => counted(r.id)),
    CHECKS.filter((c) => c.level === 'MUST' && counted(c.id)).length,
  );
  return { target: options.url, transport, notes, results, passed, verdict };
}

async function runOne(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const base = { id: check.id, section: check.section, clause: check.clause, level: check.level };
  if (check.writes && !ctx.writes)
    return {
      ...base,
      verdict: 'SKIP',
      reason: 'makes bookings or holds: a live business is checked read-only without --allow-writes',
    };
  if (check.id.startsWith('registry.') && !ctx.options.registry)
    return { ...base, verdict: 'SKIP', reason: 'the registry role was not asked for (--check-registry)' };
  try {
    const note = await check.run(ctx);
    return { ...base, verdict: 'PASS', reason: note || check.title };
  } catch (err) {
    if (err instanceof Outcome) return { ...base, verdict: err.verdict, reason: err.message };
    return { ...base, verdict: 'FAIL', reason: `the check could not complete: ${(err as Error).message}` };
  }
}

/** One line per check: verdict, level, clause, id, reason. */
export function formatResult(r: CheckResult): string {
  return `${r.verdict.padEnd(4)} ${r.level.padEnd(6)} §${r.clause.padEnd(24)} ${r.id}: ${r.reason}`;
}
