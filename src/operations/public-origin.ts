/**
 * The public origin of a business (no trailing slash): where its profile, checkout links and mail
 * point. The configured one (--public-url, else settings.public_url) wins; else the address the
 * server listens on, set once when it does; until then (stdio MCP) where `serve` listens by default.
 */

/** The public origin before the server listens anywhere (stdio MCP): where `serve` listens by default. */
export const DEFAULT_PUBLIC_URL = 'http://localhost:8787';

export class PublicOrigin {
  private listened?: string;

  /** `configured`: the origin given by flag or setting, when one was. */
  constructor(private readonly configuredUrl?: string) {}

  /** Whether the origin was configured rather than taken from the listener. */
  get configured(): boolean {
    return this.configuredUrl !== undefined;
  }

  /** The origin now: the configured one, else the address listened on, else the default. */
  get(): string {
    return (this.configuredUrl ?? this.listened ?? DEFAULT_PUBLIC_URL).replace(/\/$/, '');
  }

  /** The address the server listens on, once it does (a proof may name it whatever the origin). */
  get listenedAt(): string | undefined {
    return this.listened;
  }

  /** The address the server listens on, told once (a configured origin stays over it). */
  set(url: string): void {
    if (this.listened !== undefined) throw new Error('the public origin was already set');
    this.listened = url;
  }
}
