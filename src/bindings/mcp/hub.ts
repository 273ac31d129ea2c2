/**
 * Webhook events as MCP notifications (spec 9.2.3): every connected session that has acted for a
 * platform principal receives that principal's booking and waitlist events as `usp_webhook`
 * JSON-RPC notifications. Sessions register here; the composition root feeds committed events in.
 */
/**
 * What routes events to one session. The sets are created on first use: most sessions never hold
 * a member of some of them, and an idle session should cost little (a thousand may be open).
 */
export interface NotifiableSession {
  readonly id: string;
  /** Principals this session has acted for (a session may serve one platform, or several in tests). */
  principals?: Set<string>;
  /** Bookings and waitlist entries this session acted on with their booking-scoped credential. */
  resources?: Set<string>;
  /** Catalog events go to sessions that subscribed to the feed. */
  catalogSubscriber: boolean;
  /** Resource URIs this session subscribed to (resources/subscribe). */
  subscriptions?: Set<string>;
  notify(method: string, params: Record<string, unknown>): void;
}

export class SessionHub {
  // Each made on its first entry: most hosted businesses never see an MCP session or listener.
  private sessions: Map<string, NotifiableSession> | undefined;
  private modernListeners: Set<(principal: string | null, payload: Record<string, unknown>) => void> | undefined;
  /** Whether each stateless listener has a stream open now (absent: assumed so). */
  private listening: Map<unknown, () => boolean> | undefined;

  /** `webhookResourceUri` names a principal's webhook resource (keyed by the business's secret; the pipeline's). */
  constructor(private readonly webhookResourceUri: (principal: string) => string) {}

  /** The webhook resource a principal's events are published on (the business's naming). */
  resourceUriOf(principal: string): string {
    return this.webhookResourceUri(principal);
  }

  register(s: NotifiableSession): () => void {
    (this.sessions ??= new Map()).set(s.id, s);
    return () => this.unregister(s);
  }

  unregister(s: NotifiableSession): void {
    if (this.sessions?.get(s.id) === s) this.sessions.delete(s.id);
  }

  /**
   * Stateless (2026-era) delivery: called with every event, routed by the listener. `listening` says
   * whether it has a stream open now (its event bus's listeners), so that `hasListeners` can answer.
   */
  onEvent(
    listener: (principal: string | null, payload: Record<string, unknown>) => void,
    listening?: () => boolean,
  ): () => void {
    (this.modernListeners ??= new Set()).add(listener);
    if (listening) (this.listening ??= new Map()).set(listener, listening);
    return () => {
      this.modernListeners?.delete(listener);
      this.listening?.delete(listener);
    };
  }

  /**
   * Whether any event could reach anyone here now: a session is registered, or a stateless listener
   * has a stream open. With none, a process need not read announced events back (webhook-wiring.ts).
   */
  hasListeners(): boolean {
    if (this.size > 0) return true;
    for (const l of this.modernListeners ?? []) if (this.listening?.get(l)?.() ?? true) return true;
    return false;
  }

  get size(): number {
    return this.sessions?.size ?? 0;
  }

  /** Fan events out; each comes with its delivered body (the same JSON a webhook receiver gets). */
  deliver(events: ReadonlyArray<{ principal: string | null; order_key: string; body: Record<string, unknown> }>): void {
    for (const e of events) {
      const payload = e.body;
      for (const s of this.sessions?.values() ?? []) {
        // The platform that made the resource, or a session holding its credential.
        const actsFor = e.principal !== null && s.principals?.has(e.principal) === true;
        const wanted = e.principal === null ? s.catalogSubscriber : actsFor || s.resources?.has(e.order_key) === true;
        if (wanted) s.notify('usp_webhook', payload);
        // Clients that keep only resources/updated (the Python SDK drops usp_webhook) then read the resource.
        if (actsFor && s.subscriptions && s.subscriptions.size > 0) {
          const uri = this.webhookResourceUri(e.principal!);
          if (s.subscriptions.has(uri)) s.notify('notifications/resources/updated', { uri });
        }
      }
      for (const l of this.modernListeners ?? []) l(e.principal, payload);
    }
  }
}
