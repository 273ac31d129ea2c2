/**
 * The resources the business keeps, in their published shapes (spec 4.2, 5.2, 11.1.1, 3.12.2),
 * each wrapped with the private facts the business needs and never publishes.
 */
import type { BookingStatus } from './booking-status.js';
import type { PaymentStatus } from './payment-status.js';
import type { Dispute } from './disputes.js';
import type { HoldStatus } from './hold-status.js';
import type { SubscriptionStatus } from './subscription-status.js';
import type { WaitlistStatus } from './waitlist-status.js';
import type { Message } from './outcomes.js';

export interface Buyer {
  first_name: string;
  last_name: string;
  email: string;
  phone_number?: string;
  consent?: Record<string, boolean>;
}

export interface DeliveryAddress {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code?: string;
  country: string;
  coordinates?: { lat: number; lng: number };
}

export interface PaymentContext {
  amount_due: number;
  currency: string;
  description: string;
  line_items: Array<{ label: string; amount: number; quantity: number; item_id: string }>;
  metadata: { booking_id: string; service_id: string; service_type: string; slot_start?: string };
  tax_amount?: number;
}

export interface Action {
  type: string;
  status: 'pending' | 'completed' | 'expired';
  continue_url: string;
  expires_at: string;
  message?: Message;
  payment_context?: PaymentContext;
}

export interface BookingPayment {
  status: PaymentStatus;
  timing: 'at_booking' | 'at_service' | 'deposit_required';
  amount?: number;
  currency?: string;
  amount_due?: number;
  deposit_amount?: number;
  amount_paid?: number;
  transaction_id?: string;
  order_reference?: string;
}

export interface Booking {
  id: string;
  service_id: string;
  service_name: string;
  slot: { id: string; start: string; end: string; duration: string };
  buyer: Buyer;
  recipient?: Buyer;
  party_size: number;
  resources?: Array<{ id: string; type: string; name: string }>;
  location?: { id: string; name: string };
  delivery_address?: DeliveryAddress;
  status: BookingStatus;
  confirmation_mode: 'auto' | 'manual';
  payment?: BookingPayment;
  actions?: Action[];
  notes?: string;
  cancellation?: {
    reason?: string;
    canceled_by: 'buyer' | 'business' | 'system';
    fee: number;
    refund_amount: number;
    canceled_at: string;
  };
  /** A payment dispute (spec 5.5.2); it never changes `status`. */
  dispute?: Dispute;
  created_at: string;
  updated_at: string;
  expires_at?: string;
  revision: string;
}

/** What the business knows about a booking beyond what it publishes. */
export interface BookingPrivate {
  principal: string | null;
  /** The buyer account the booking also belongs to, when made with a buyer-linked OAuth token. */
  account_id?: string;
  /** The platform profile URI presented when the booking was made (where its webhooks go). */
  profile?: string | null;
  slot_key: string;
  start_ms: number;
  end_ms: number;
  resource_ids: string[];
  hold_id?: string;
  reschedule_count: number;
  /** Total price of the booking in minor units (0 when free). */
  price_total: number;
  /** What has been collected so far, in minor units (net of refunds recorded at once, see `refunded`). */
  amount_paid: number;
  /** Refunds the business made outside a cancellation, with its reason; `provider_jobs` when the provider was asked (else recorded at once and taken off `amount_paid`). */
  business_refunds?: Array<{ amount: number; reason: string; at: string; provider_jobs?: string[] }>;
  /** Policy fees (a late reschedule) to collect with the price at the appointment, in minor units. */
  fees_at_service?: number;
  expires_at_ms?: number;
  post_payment_return_request?: { url: string; params?: Record<string, string> };
  /** The business has confirmed this booking once (a later payment does not need a second approval). */
  confirmed_once?: boolean;
  /** Set when the booking came from a waitlist offer, to waive policies per 11.1.4. */
  waitlist_entry_id?: string;
  /** The money as the payment provider moved it (checkouts, refunds, disputes, mismatches), with the provider's ids. */
  provider?: ProviderMoney;
  /** The platform that made the booking tells the buyer itself (its profile says so): the business sends no mail about it. */
  platform_messages?: boolean;
  /** The buyer's language as the call that made the booking stated it (BCP 47): its mails are written in it. */
  locale?: string;
  /** Its payment link lapsed and the same booking was made again with a fresh one (renew_payment_link): that booking's id. */
  renewed_as?: string;
  /** Made by renew_payment_link from this lapsed booking. */
  renewed_from?: string;
}

/** A payment action's checkout at the provider; `action_index` is its place in `booking.actions`. */
export interface ProviderCheckout {
  action_id: string;
  action_index: number;
  amount: number;
  currency: string;
  session_id?: string;
  /** Where the buyer pays (the provider's hosted page). */
  url?: string;
  /** The provider's payment (a Stripe payment intent), once paid. */
  payment_ref?: string;
  status: 'requested' | 'open' | 'paid' | 'expired' | 'late';
}

export interface ProviderRefund {
  job_id: string;
  amount: number;
  /** The provider's payment the refund is taken from. */
  payment_ref: string;
  refund_id?: string;
  status: 'requested' | 'succeeded' | 'failed';
}

/** What the provider reported on a booking beyond the USP payment block. */
export interface ProviderMoney {
  provider: string;
  checkouts: ProviderCheckout[];
  refunds: ProviderRefund[];
  /** What the provider says was refunded, per payment (refunds made there directly included). */
  refunded: Record<string, number>;
  disputes: Array<{ dispute_id: string; amount: number; reason: string; status: string }>;
  /** Paid amounts that did not match the action: recorded, the booking left as it was. */
  mismatches: Array<{ event_id: string; amount: number; currency: string; at: string }>;
}

export interface BookingRecord {
  booking: Booking;
  priv: BookingPrivate;
}

export interface Hold {
  id: string;
  slot_id: string;
  service_id: string;
  spots: number;
  expires_at: string;
  status: HoldStatus;
}

export interface HoldRecord {
  hold: Hold;
  priv: {
    principal: string | null;
    profile?: string | null;
    slot_key: string;
    start_ms: number;
    end_ms: number;
    resource_ids: string[];
    expires_at_ms: number;
    /** The booking this hold became, when converted. */
    booking_id?: string;
    /** The waitlist entry this hold keeps a place for, when the hold backs an offer. */
    waitlist_entry_id?: string;
    /** Buyer email when known (hold-abuse limits count per platform and buyer). */
    buyer_key?: string;
  };
}

export interface WaitlistEntry {
  id: string;
  service_id: string;
  buyer: Buyer;
  preferred_slots?: Array<{ start_date?: string; end_date?: string; time_of_day?: string }>;
  status: WaitlistStatus;
  position: number;
  offered_slot?: { slot_id: string; start: string; end: string };
  offer_expires_at?: string;
  created_at: string;
  revision: string;
  /** How many people wait together (our member: the spec's entry has none); an offer is for all of them. Absent on entries made before it: 1. */
  party_size?: number;
  /** The slot the buyer asked to wait for, when they named one. */
  slot_id?: string;
}

export interface WaitlistRecord {
  entry: WaitlistEntry;
  priv: {
    /** The platform that added the entry tells the buyer itself: no offer mail from the business. */
    platform_messages?: boolean;
    /** The buyer's language as the call that added the entry stated it: the offer mail is written in it. */
    locale?: string;
    principal: string | null;
    profile?: string | null;
    created_ms: number;
    offer_hold_id?: string;
    offer_expires_ms?: number;
    booking_id?: string;
  };
}

export interface FeedSubscription {
  id: string;
  callback_url: string;
  categories?: string[];
  events?: string[];
  status: SubscriptionStatus;
  created_at: string;
}

export interface SubscriptionRecord {
  subscription: FeedSubscription;
  priv: { principal: string | null };
}
