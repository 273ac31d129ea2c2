/** The outbox's event, apart from the port so that the ports which read it (admin history) need not import the whole port. */

/** An event written in the same transaction as the change that caused it (webhook outbox). */
export interface OutboxEvent {
  event_id: string;
  event: string;
  /** Booking, waitlist entry or service id: events of one key are delivered in order. */
  order_key: string;
  /** Principal that owns the resource (its platform receives the event), or null for catalog events. */
  principal: string | null;
  /** The owner's platform profile URI, whose webhook_url receives the event. */
  profile: string | null;
  payload: Record<string, unknown>;
  created_ms: number;
  /** When the event becomes due (reminders are scheduled ahead). */
  due_ms: number;
}
