/**
 * A fault a door lets escape, as its log line tells it: the name, the message and the first stack
 * frames. It goes to the server's logger only, never into an answer (the answer is `server_error`).
 */
export function faultText(err: unknown): string {
  return err instanceof Error
    ? (err.stack ?? `${err.name}: ${err.message}`).split('\n').slice(0, 4).join('\n')
    : String(err);
}
