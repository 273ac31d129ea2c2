/** `usp-server conformance URL`: run the USP conformance suite against a server (ours or anyone's). */
import { intFlag, UsageError, type Command, type Flags } from './common.js';

const HELP = `usp-server conformance: check a USP business (or registry) against the specification, black-box

Usage:
  usp-server conformance URL [--spec DIR] [--json] [--allow-writes] [--stdio "COMMAND ..."]

Reads URL/.well-known/usp, then checks what the profile claims over REST and, when it advertises
one, the MCP Streamable HTTP endpoint (or, with --stdio, an MCP server started as COMMAND). Each
check (docs/CONFORMANCE.md lists them) names its spec clause and level and prints PASS, FAIL or SKIP with the reason; the first
line names the transports checked, and a summary by section follows with the verdict: CONFORMANT only
when every MUST-level check ran and passed, NOT CONFORMANT when one failed, else INCOMPLETE with the
number of MUST-level checks that did not run and the flags (the suite's) or options (the server's)
that would run them. A full run of our own server: serve it with --require-auth
--allow-loopback-profiles, and give the suite --allow-writes, --spec and --origin. A sandbox business is checked fully; a live one read-only unless --allow-writes
(then the suite books only what it cancels). Platform authentication, version negotiation and
webhooks use a loopback platform the suite runs (its profiles and webhook receiver on 127.0.0.1):
a business that does not fetch loopback platform profiles skips those checks.

Options:
  --spec DIR        the official USP artifacts (schemas, openapi, openrpc, tests/vectors: a clone of
                    https://github.com/wix/universal-scheduling-protocol); default ../shared/usp-spec
                    from the working directory or from this package. Absent: schema checks are
                    skipped with a note.
  --json            print one JSON report instead of lines
  --allow-writes    check a live (non-sandbox) business with bookings it then cancels
  --stdio           speak MCP over stdio to the COMMAND given as the other argument
  --check-registry  check the registry role too
  --race-width N    concurrent requests in the race checks (default 8)
  --timeout MS      per-request deadline (default 10000)
  --only ID         run only this check (repeatable; "auth." runs a section)
  --origin ORIGIN   a browser platform's origin the business allows: its CORS preflight and answers are checked

Exit status: 0 when no MUST-level check failed (CONFORMANT or INCOMPLETE: read the verdict); 1 when
one failed; 2 on wrong usage.
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  // Loaded when the command runs: the suite (and its schema validator) costs the other commands nothing at start.
  const { formatHeader, formatResult, formatSummary, locateSpec, runSuite } = await import(
    '../../conformance/index.js'
  );
  const url = args.find((a) => /^https?:\/\//.test(a));
  const others = args.filter((a) => a !== url);
  if (!url) throw new UsageError('Usage: usp-server conformance URL   (usp-server conformance --help says more)');
  if (flags.stdio && others.length !== 1)
    throw new UsageError('--stdio needs the command to start, as one quoted argument: --stdio "usp-server mcp --demo"');
  if (!flags.stdio && others.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(others[0])}`);
  const located = locateSpec(flags.spec);
  if (flags.spec && !located.dir)
    throw new UsageError(`--spec ${flags.spec}: no USP artifacts there (expected schemas/ and openapi/usp-rest.json)`);
  const report = await runSuite(
    {
      url,
      specDir: located.dir,
      allowWrites: Boolean(flags['allow-writes']),
      stdio: flags.stdio ? others[0] : undefined,
      registry: Boolean(flags['check-registry']),
      raceWidth: intFlag(flags, 'race-width', 2) ?? 8,
      timeoutMs: intFlag(flags, 'timeout', 100) ?? 10_000,
      only: flags.only?.length ? flags.only : undefined,
      origin: flags.origin,
    },
    (r) => {
      if (!flags.json) console.log(formatResult(r));
    },
    (transport) => {
      if (!flags.json) console.log(formatHeader(url, transport));
    },
  );
  if (flags.json) console.log(JSON.stringify(report, null, 2));
  else {
    for (const n of report.notes) console.log(`note: ${n}`);
    console.log(formatSummary(report));
  }
  return report.passed ? 0 : 1;
}

export const conformanceCommand: Command = { name: 'conformance', help: HELP, run };
