/**
 * The protocol's objects as a platform receives them, typed after the official schemas (the
 * members a platform reads; every object stays open to members a newer business adds). A booking
 * and a message are the domain's own types, which the server publishes as they are.
 */
import type { Booking, Message } from '../domain/index.js';

export type { Booking, Message };

/** A service of the catalog (catalog.json Service). */
export interface Service {
  id: string;
  business_id: string;
  name: string;
  type: string;
  duration: unknown;
  pricing: Record<string, unknown>;
  status?: string;
  [k: string]: unknown;
}

/** A bookable time (availability.json TimeSlot). */
export interface TimeSlot {
  id: string;
  service_id: string;
  start: string;
  end: string;
  duration: string;
  state: string;
  capacity?: { total?: number; remaining?: number; [k: string]: unknown };
  [k: string]: unknown;
}

/** A hold on a slot (availability.json Hold). */
export interface Hold {
  id: string;
  slot_id: string;
  service_id: string;
  spots?: number;
  expires_at: string;
  status: string;
  [k: string]: unknown;
}

/** A place on a waitlist (waitlist.json WaitlistEntry). */
export interface WaitlistEntry {
  id: string;
  service_id: string;
  status: string;
  position: number;
  created_at: string;
  offered_slot?: Record<string, unknown>;
  offer_expires_at?: string;
  revision?: string;
  [k: string]: unknown;
}

/** A booking-scoped credential as the business issues it. */
export interface IssuedCredential {
  value: string;
  expires_at?: string;
  [k: string]: unknown;
}

type WithCredential<T> = T & { booking_scoped_credential?: IssuedCredential };

/** What each operation answers with (besides `messages`, which the answer carries apart). */
export interface OperationResults {
  list_services: { services: Service[]; pagination?: Record<string, unknown> };
  services_feed: { services: Service[]; [k: string]: unknown };
  lookup_services: { services: Service[] };
  get_service: { service: Service };
  create_feed_subscription: { subscription: Record<string, unknown> & { id: string } };
  get_feed_subscription: { subscription: Record<string, unknown> & { id: string } };
  cancel_feed_subscription: { subscription?: Record<string, unknown> };
  query_availability: { slots: TimeSlot[]; [k: string]: unknown };
  hold_slot: WithCredential<{ hold: Hold }>;
  release_hold: { hold?: Hold };
  create_booking: WithCredential<{ booking: Booking }>;
  get_booking: { booking: Booking };
  update_booking: { booking: Booking };
  cancel_booking: { booking: Booking };
  reschedule_booking: { booking: Booking };
  confirm_payment: { booking: Booking };
  join_waitlist: WithCredential<{ entry: WaitlistEntry }>;
  list_waitlist: { entries: WaitlistEntry[]; [k: string]: unknown };
  get_waitlist_entry: { entry: WaitlistEntry };
  leave_waitlist: { entry?: WaitlistEntry };
  accept_waitlist_offer: WithCredential<{ entry: WaitlistEntry; booking: Booking }>;
  decline_waitlist_offer: { entry: WaitlistEntry };
}
