/**
 * A pg client class that tells a callback the text of each query before sending it: tests count a
 * store's statements and round trips with it (`PostgresStoreOptions.onStatement`).
 */
import pg from 'pg';

/** pg's client class telling `onStatement` the text of each query before sending it. */
export function countingClient(onStatement: (sql: string) => void): typeof pg.Client {
  return class extends pg.Client {
    override query(...args: unknown[]): any {
      const q = args[0] as string | { text?: string };
      onStatement(typeof q === 'string' ? q : (q?.text ?? ''));
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
  } as typeof pg.Client;
}
