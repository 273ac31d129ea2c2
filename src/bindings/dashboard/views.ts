/**
 * The dashboard's view models: what each screen reads from the admin operations' answers (their
 * `data` is untyped JSON on the wire; these name the members a screen shows). One place, so a
 * screen's template is checked against the fields it uses.
 */
import type { MoneyView } from '../../operations/index.js';

/** A booking as the protocol object carries it, the members the screens show. */
export interface BookingView {
  id: string;
  status: string;
  confirmation_mode: string;
  service_id: string;
  service_name: string;
  party_size: number;
  buyer: { first_name: string; last_name: string; email: string; phone_number?: string };
  recipient?: { first_name: string; last_name: string; email: string; phone_number?: string };
  delivery_address?: {
    line1: string;
    line2?: string;
    city: string;
    region?: string;
    postal_code?: string;
    country: string;
  };
  notes?: string;
  cancellation?: { canceled_by: string; reason?: string };
}

/** A booking where it sits: the `bookings` operation's rows and the base of `booking_detail`. */
export interface CalendarRow {
  booking: BookingView;
  start_ms: number;
  end_ms: number;
  resource_ids: string[];
  platform?: string | null;
}

/** The business days a calendar shows (`from` inclusive, `to` exclusive, local dates). */
export interface DayRange {
  from: string;
  to: string;
}

export interface BookingsView {
  range: DayRange;
  bookings: CalendarRow[];
}

export interface FiguresView {
  figures: {
    bookings: number;
    by_status: Record<string, number>;
    revenue_minor: Record<string, number>;
    pending_confirmations: number;
    failed_deliveries: number;
  };
}

export interface BookingDetailView extends CalendarRow {
  money?: MoneyView;
  events: Array<{ timestamp: string; event: string; event_id: string }>;
  messages?: MessageView[];
}

/** A message to the booking's buyer and how far it got. */
export interface MessageView {
  kind: string;
  recipient: string;
  status: 'queued' | 'sent' | 'failed' | 'canceled';
  attempts: number;
  due_at: string;
  sent_at?: string;
  error?: string;
}

export interface FreeSlotView {
  id: string;
  start: string;
  end: string;
  state?: string;
  resources?: Array<{ name: string }>;
}

export interface ScheduleChangeView {
  id: string;
  resource_id: string;
  kind: 'time_off' | 'exception';
  start: string;
  end: string;
  date: string;
  hours: Array<{ opens: string; closes: string }>;
  reason?: string;
}

export interface WaitlistEntryView {
  id: string;
  status: string;
  created_at: string;
}

export interface DeliveryView {
  id: string;
  created_at: string;
  event: string;
  status: string;
  attempts: number;
  last_status?: number | null;
  last_error?: string | null;
  target_url: string;
}

export interface SigningKeyView {
  kid: string;
  created_at: string;
  signs_from?: string;
  retired_at?: string | null;
}

export interface ApiKeyView {
  id: string;
  label: string;
  created_at: string;
  revoked_at?: string | null;
}

export interface AuditEntryView {
  seq: number | string;
  at: string;
  actor: string;
  action: string;
  target?: string | null;
  outcome: string;
}

/** An operation's `data` as the view model the screen reads. */
export const viewOf = <T>(data: Record<string, unknown>): T => data as unknown as T;
