/** A logger that keeps its lines, for tests that check what was logged (and what was not). */
import type { Logger } from '../../src/operations/index.js';

export type LogLine = { level: string; msg: string; fields: Record<string, unknown> };

export function recorder(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}
