/**
 * What a run proved, in words: "CONFORMANT" only when every MUST-level check of the suite that
 * applies ran and passed; "NOT CONFORMANT" when one failed; otherwise "INCOMPLETE", with the number
 * of MUST-level checks that did not run and, grouped, the suite's flags or the server's options that
 * would run them (a SKIP's reason says why it skipped; the table below says what would lift it). A
 * check skipped for what the business does not offer (no suspended service to look at, holds not
 * declared) cannot be run by any flag: it is named as not applying, and does not hold back the verdict.
 */
import type { CheckResult } from './types.js';

/** Where the official artifacts come from (the protocol's public repository). */
export const USP_ARTIFACTS = 'https://github.com/wix/universal-scheduling-protocol';

/** The transports a run used, for its first line. */
export interface RunTransport {
  rest: string;
  /** "Streamable HTTP <endpoint>", "stdio <command>", or null (no MCP door checked). */
  mcp: string | null;
}

/** A run's verdict, its MUST-level checks that did not run, and what would run them. */
export interface RunVerdict {
  verdict: 'CONFORMANT' | 'INCOMPLETE' | 'NOT CONFORMANT';
  mustFailed: number;
  mustSkipped: number;
  /** MUST-level checks of the suite not run at all (left out by --only). */
  mustNotSelected: number;
  /** What would run the skipped MUST checks: one line each, with the checks it would run. */
  toRun: Array<{ how: string; checks: string[] }>;
  /** MUST-level checks skipped for what the business does not offer, with the reason. */
  notApplicable: string[];
}

/** A SKIP's reason, and what would run the check: the suite's flag or the server's option. */
const REMEDIES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /official artifacts are absent|artifacts/i,
    `the suite: --spec DIR with the official USP artifacts (schemas/, openapi/, tests/vectors/ of ${USP_ARTIFACTS})`,
  ],
  [
    /a sandbox: privileged operations accept unauthenticated/i,
    'the server: require platform authentication (usp-server serve --require-auth --allow-loopback-profiles), and the suite: --allow-writes',
  ],
  [/live business is checked read-only/i, 'the suite: --allow-writes (it books only what it cancels)'],
  [/registry role was not asked/i, 'the suite: --check-registry (against a registry)'],
  [
    /loopback platform profiles|did not fetch the platform profile|may not fetch loopback/i,
    "the server: fetch the suite's loopback platform profiles (usp-server serve --require-auth --allow-loopback-profiles)",
  ],
  [
    /no --origin given/i,
    'the suite: --origin ORIGIN, a browser origin the server allows (usp-server serve --cors-origin ORIGIN)',
  ],
  [
    /no MCP binding|no --stdio/i,
    'the suite: --stdio "COMMAND" starting the MCP server (e.g. --stdio "npx usp-server mcp --demo"), or a server that advertises MCP over HTTP',
  ],
  [
    /does not accept (platform_key_pop|http_message_signature|api_key|booking_scoped_credential)/i,
    'the server: accept that mechanism (usp-server serve --require-auth accepts every one)',
  ],
  [
    /served over http/i,
    'the server: serve over https (usp-server serve --tls-cert FILE --tls-key FILE, or behind a TLS proxy)',
  ],
];

export function verdictOf(results: readonly CheckResult[], suiteMust: number): RunVerdict {
  const must = results.filter((r) => r.level === 'MUST');
  const failed = must.filter((r) => r.verdict === 'FAIL');
  const groups = new Map<string, string[]>();
  const notApplicable: string[] = [];
  let skipped = 0;
  for (const r of must.filter((x) => x.verdict === 'SKIP')) {
    const how = REMEDIES.find(([re]) => re.test(r.reason))?.[1];
    if (!how) {
      notApplicable.push(`${r.id} (${r.reason})`);
      continue;
    }
    skipped++;
    groups.set(how, [...(groups.get(how) ?? []), r.id]);
  }
  const mustNotSelected = Math.max(0, suiteMust - must.length);
  if (mustNotSelected > 0) groups.set('the suite: run without --only', [`${mustNotSelected} not selected`]);
  const verdict = failed.length ? 'NOT CONFORMANT' : skipped || mustNotSelected ? 'INCOMPLETE' : 'CONFORMANT';
  return {
    verdict,
    mustFailed: failed.length,
    mustSkipped: skipped,
    mustNotSelected,
    toRun: [...groups].map(([how, checks]) => ({ how, checks })),
    notApplicable,
  };
}

/** The first line of a run: what is checked, over which transports. */
export function formatHeader(target: string, t: RunTransport): string {
  return `Checking ${target} over REST ${t.rest} and ${t.mcp ? `MCP ${t.mcp}` : 'no MCP (none advertised, no --stdio)'}`;
}

/** The summary by section, then the verdict and, when incomplete, what would run the rest. */
export function formatSummary(report: {
  results: readonly CheckResult[];
  verdict: RunVerdict;
  transport: RunTransport;
}): string {
  const sections = new Map<string, Record<string, number>>();
  for (const r of report.results) {
    const s = sections.get(r.section) ?? { PASS: 0, FAIL: 0, SKIP: 0 };
    s[r.verdict]++;
    sections.set(r.section, s);
  }
  const lines = [...sections].map(([name, s]) => `  ${name.padEnd(12)} ${s.PASS} pass, ${s.FAIL} fail, ${s.SKIP} skip`);
  const v = report.verdict;
  const shouldFails = report.results.filter((r) => r.level === 'SHOULD' && r.verdict === 'FAIL').length;
  const over = `over REST${report.transport.mcp ? ` and MCP ${report.transport.mcp.split(' ')[0] === 'stdio' ? 'stdio' : 'Streamable HTTP'}` : ' only'}`;
  if (v.verdict === 'NOT CONFORMANT')
    lines.push(`NOT CONFORMANT (${over}): ${v.mustFailed} MUST-level check(s) failed`);
  else if (v.verdict === 'CONFORMANT')
    lines.push(
      `CONFORMANT (${over}): every MUST-level check that applies ran and passed (${shouldFails} SHOULD-level failures)`,
    );
  else {
    const notRun = v.mustSkipped + v.mustNotSelected;
    lines.push(
      `INCOMPLETE (${over}): no MUST-level check failed, but ${notRun} MUST-level check(s) did not run (${v.mustSkipped} skipped${v.mustNotSelected ? `, ${v.mustNotSelected} not selected` : ''}); to run them:`,
    );
    for (const g of v.toRun) lines.push(`  - ${g.how}: ${g.checks.join(', ')}`);
  }
  if (v.notApplicable.length)
    lines.push(
      `Not applicable to what this business offers (${v.notApplicable.length} MUST-level): ${v.notApplicable.join('; ')}`,
    );
  return ['Summary by section:', ...lines].join('\n');
}
