/**
 * Loading oidc-provider. It declares Node 22 and prints `Unsupported runtime` on Node 20 (our
 * engine) when its module is evaluated; every API it uses exists on Node 20.20 and our suites run
 * its flows there, so that one line is held back (only that one) instead of reaching every
 * command's stderr. Loaded once, by the first request to the authorization server (src/oauth/door.ts).
 */
type Library = typeof import('oidc-provider');

let loading: Promise<Library> | undefined;

export function loadOidcProvider(): Promise<Library> {
  return (loading ??= (async () => {
    // biome-ignore lint/suspicious/noConsole: holds back the library's one line (it writes nothing of its own)
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime')) return;
      warn(...args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })());
}
