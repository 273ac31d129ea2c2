/** The conformance suite: a black-box client of a USP server (see runner.ts). */
export { runSuite, formatResult, formatSummary, CHECKS } from './runner.js';
export type { SuiteReport } from './runner.js';
export { locateSpec } from './spec.js';
export type { Check, CheckResult, SuiteOptions, Level, Verdict } from './types.js';
