/**
 * One open MCP session over HTTP (Streamable HTTP or the legacy HTTP+SSE): what routes events to
 * it, its transport and server, and the door's bookkeeping (reaper, caps, the errors its POSTs were
 * answered with).
 */
import type { Server, Transport } from '@modelcontextprotocol/server';
import type { NotifiableSession, SessionHub } from './hub.js';

/**
 * One open session of either transport: what routes events to it, its transport and server, and
 * the reaper's bookkeeping. A class, so that an idle session holds its fields and no closures.
 */
export class LiveSession implements NotifiableSession {
  principals?: Set<string>;
  resources?: Set<string>;
  subscriptions?: Set<string>;
  catalogSubscriber = false;
  lastSeen = Date.now();
  /** Streamable HTTP POSTs of this session being answered right now (such a session is never evicted). */
  busy = 0;
  /** The client came back after initialize (a follow-up request or the GET stream). */
  used = false;
  /** Ids of requests answered with an error, until the POST that asked reads them (`erredFor`). */
  private erred?: Set<unknown>;
  server!: Server;

  constructor(
    readonly id: string,
    readonly transport: Transport & { close(): Promise<void> },
    /** The client address that opened it (per-address cap). */
    readonly address: string | undefined,
    /** Messages received (SSE: the first is initialize). */
    public messages: number,
    /** Notifications wait here until the client's GET stream is open; sending earlier loses them. */
    public queue: Array<{ method: string; params: Record<string, unknown> }> | null,
    private readonly door: { sessions: Map<string, LiveSession>; hub: SessionHub },
  ) {}

  /** guardSend's watch (Streamable HTTP only): an error response went out. */
  answeredWithError(id: unknown): void {
    (this.erred ??= new Set()).add(id);
  }

  /** Whether any request of a POST's body was answered with an error; forgets them (each POST reads its own). */
  erredFor(body: unknown): boolean {
    if (!this.erred) return false;
    let erred = false;
    for (const m of Array.isArray(body) ? body : [body]) {
      const id = m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined;
      if (id !== undefined && this.erred.delete(id)) erred = true;
    }
    if (this.erred.size === 0) this.erred = undefined;
    return erred;
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.queue) this.queue.push({ method, params });
    else this.server.notification({ method, params } as never).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.door.sessions.delete(this.id)) return;
    this.door.hub.unregister(this);
    await this.server.close().catch(() => undefined);
  }
}
