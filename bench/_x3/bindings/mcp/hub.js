export function webhookPayload(e) {
    return { event: e.event, event_id: e.event_id, ...e.payload, timestamp: new Date(e.created_ms).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}
export class SessionHub {
    sessions = new Map();
    modernListeners = new Set();
    register(s) {
        this.sessions.set(s.id, s);
        return () => this.sessions.delete(s.id);
    }
    /** Stateless (2026-era) delivery: called with every event, routed by the listener. */
    onEvent(listener) {
        this.modernListeners.add(listener);
        return () => this.modernListeners.delete(listener);
    }
    get size() {
        return this.sessions.size;
    }
    deliver(events) {
        for (const e of events) {
            const payload = webhookPayload(e);
            for (const s of this.sessions.values()) {
                const wanted = e.principal === null ? s.catalogSubscriber : s.principals.has(e.principal);
                if (wanted)
                    s.notify('usp_webhook', payload);
            }
            for (const l of this.modernListeners)
                l(e.principal, payload);
        }
    }
}
//# sourceMappingURL=hub.js.map