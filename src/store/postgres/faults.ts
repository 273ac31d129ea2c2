/** How PostgreSQL errors are told apart: the database away, a claim conflict, a transaction worth running again. */

/** Two firm claims of different slots overlapped on a resource: the database refused the second. */
export class ClaimConflict extends Error {
  override readonly name = 'ClaimConflict';
  readonly code = '23P01';
  constructor(
    readonly detail: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`claim overlaps another booking on the same resource${detail ? ` (${detail})` : ''}`, options);
  }
}

export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The database (or the way to it) failed, not the statement: the reason, or undefined for an error
 * the statement itself caused. SQLSTATE classes 08 (connection exception), 57P0x (the server is
 * shutting down or starting), 53300 (too many connections), 57014 (statement timeout), 25006 (a
 * read-only standby after a failover); socket errors; and pg's own messages for a cut connection.
 */
export function connectionFault(err: unknown): string | undefined {
  const code = pgCode(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code) {
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '57014' || code === '25006')
      return `${code} ${message}`;
    if (/^E[A-Z]+$/.test(code) && /^(ECONN|EPIPE|ETIMEDOUT|EHOST|ENET|ENOTFOUND|EAI_AGAIN)/.test(code))
      return `${code} ${message}`;
  }
  if (err instanceof AggregateError) return err.errors.map(connectionFault).find((f) => f !== undefined);
  if (
    /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout|connect ECONNREFUSED|Connection refused/i.test(
      message,
    )
  ) {
    return message;
  }
  return undefined;
}

/** Worth running the whole transaction again: the next attempt sees the winner's committed state. */
export function retryable(err: unknown): boolean {
  if (err instanceof ClaimConflict) return true;
  const code = pgCode(err);
  if (code === '40001' || code === '40P01') return true;
  // Two conversions of one hold racing past each other; the retry reads the hold as converted.
  return code === '23505' && (err as { constraint?: string }).constraint === 'bookings_hold_id_key';
}
