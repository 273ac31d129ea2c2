/**
 * Every message kind as a buyer of this business would get it, rendered from a sample booking (the
 * business's first priced service, an hour long, on the hour two days on) through the same
 * renderer as the worker, with the business's own templates: the dashboard's preview.
 */
import type { BookingRecord } from '../domain/index.js';
import type { MailKind } from '../operations/index.js';
import type { MailMessage } from '../store/index.js';
import { renderMail, type RenderContext } from './render.js';

export interface MailPreview {
  kind: string;
  subject: string;
  text: string;
  html: string;
  /** The business's own template replaced the built-in text. */
  overridden: boolean;
}

const PREVIEWED: readonly MailKind[] = [
  'booking_confirmed',
  'booking_requested',
  'booking_declined',
  'payment_needed',
  'booking_rescheduled',
  'booking_canceled',
  'refund_issued',
  'reminder',
  'waitlist_offer',
];

/** The kinds the preview shows, in the order a booking meets them. */
export const PREVIEW_KINDS: readonly string[] = PREVIEWED;

function sampleBooking(rc: RenderContext, now: number): BookingRecord {
  const biz = rc.biz;
  const services = [...biz.services.values()];
  const service = services.find((s) => (s.pricing.amount ?? 0) > 0) ?? services[0];
  const startMs = Math.ceil((now + 2 * 86_400_000) / 3_600_000) * 3_600_000;
  const endMs = startMs + 3_600_000;
  const loc = biz.def.business.locations[0];
  const total = service?.pricing.amount ?? 0;
  const currency = service?.pricing.currency ?? biz.def.business.currency;
  const booking = {
    id: 'bkg_sample',
    service_id: service?.id ?? 'svc_sample',
    service_name: service?.name ?? 'Sample service',
    status: 'confirmed',
    buyer: { first_name: 'Sam', last_name: 'Sample', email: 'sam@example.com' },
    resources: [],
    ...(loc ? { location: { id: loc.id, name: loc.name } } : {}),
    ...(total > 0 ? { payment: { currency, timing: 'at_service' } } : {}),
    cancellation: { fee: 0, refund_amount: total },
    expires_at: new Date(now + 86_400_000).toISOString(),
    updated_at: new Date(now).toISOString(),
  };
  const priv = {
    start_ms: startMs,
    end_ms: endMs,
    price_total: total,
    amount_paid: 0,
    reschedule_count: 0,
    confirmed_once: true,
  };
  return { booking, priv } as unknown as BookingRecord;
}

export function previewMails(rc: RenderContext, now: number): MailPreview[] {
  const rec = sampleBooking(rc, now);
  return PREVIEWED.map((kind) => {
    const b =
      kind === 'booking_canceled' || kind === 'booking_declined'
        ? rec.booking
        : { ...rec.booking, cancellation: undefined };
    const payload: Record<string, unknown> =
      kind === 'waitlist_offer'
        ? {
            entry: {
              service_id: rec.booking.service_id,
              buyer: rec.booking.buyer,
              offered_slot: {
                start: new Date(rec.priv.start_ms).toISOString(),
                end: new Date(rec.priv.end_ms).toISOString(),
              },
              offer_expires_at: new Date(now + 3_600_000).toISOString(),
            },
            offer_path: '/waitlist/wle_sample/offer?token=sample',
          }
        : {
            booking: b,
            priv: rec.priv,
            ...(kind === 'payment_needed'
              ? {
                  payment: {
                    url: new URL('/checkout/bkg_sample', rc.biz.publicUrl).toString(),
                    expires_at: b.expires_at,
                    amount: rec.priv.price_total,
                  },
                }
              : {}),
            ...(kind === 'refund_issued' ? { refund_amount: rec.priv.price_total } : {}),
          };
    const m = {
      id: `preview|${kind}`,
      kind,
      subject_id: 'bkg_sample',
      recipient: 'sam@example.com',
      locale: null,
      payload,
    } as unknown as MailMessage;
    const out = renderMail(m, rc);
    return { kind, subject: out.subject, text: out.text, html: out.html, overridden: rc.overrides?.has(kind) ?? false };
  });
}
