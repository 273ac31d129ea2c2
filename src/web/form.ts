/**
 * Reading a browser's form post. A body that does not parse (a multipart body with a broken
 * boundary, a truncated part) is the sender's mistake, not the server's: it becomes `MalformedBody`,
 * which the host answers with a 400 in the door's own page and a log line, never a 500.
 */
import type { Context } from 'hono';

/** The form could not be read; `cause` is the parser's own complaint (for the log only). */
export class MalformedBody extends Error {
  constructor(override readonly cause: unknown) {
    super('The form could not be read.');
    this.name = 'MalformedBody';
  }
}

/** A form's fields (urlencoded or multipart, as Hono parses them), or MalformedBody. */
export async function readForm(c: Context): Promise<Record<string, unknown>> {
  try {
    return (await c.req.parseBody()) as Record<string, unknown>;
  } catch (err) {
    throw new MalformedBody(err);
  }
}
