/** The conformance suite: a black-box client of a USP server (see runner.ts). */
export { runSuite, formatResult, CHECKS } from './runner.js';
export { formatHeader, formatSummary, USP_ARTIFACTS } from './verdict.js';
export type { RunTransport, RunVerdict } from './verdict.js';
export type { SuiteReport } from './runner.js';
export { locateSpec } from './spec.js';
export type { Check, CheckResult, SuiteOptions, Level, Verdict } from './types.js';
