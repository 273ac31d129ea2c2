/**
 * The `content` text of a tool result: what a model can relay to a person as is. Times in the
 * business's time zone with the zone named, prices with their currency, and the next step.
 */
import { formatMoney, type Message } from '../../operations/index.js';

export interface SummaryContext {
  zone: string;
  currency: string;
}

/**
 * Intl formatters are costly to build (~130 µs for a DateTimeFormat with a zone, ~70 µs for a
 * currency NumberFormat) and each one holds native ICU memory until it is collected: building one
 * per call made an availability result cost 1 ms more and let the RSS of a busy MCP server grow
 * past 500 MB (bench/mcp.mjs). They are immutable, so one per zone is kept (and one per currency,
 * by formatMoney).
 */
const FORMATTER_CACHE_LIMIT = 100;
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function cached<F>(cache: Map<string, F>, key: string, make: () => F): F {
  let f = cache.get(key);
  if (f === undefined) {
    f = make();
    if (cache.size >= FORMATTER_CACHE_LIMIT) cache.clear();
    cache.set(key, f);
  }
  return f;
}

function when(iso: unknown, zone: string): string {
  if (typeof iso !== 'string') return 'an unknown time';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const format = cached(dateFormats, zone, () =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    }),
  );
  return `${format.format(d)} (${zone})`;
}

function money(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number') return '';
  return formatMoney(amount, typeof currency === 'string' ? currency : 'USD');
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** "Fri 4 Dec" and "9:00" of an instant in `zone`. */
function dayAndClock(ms: number, zone: string): [string, string] {
  const d = new Date(ms);
  const day = cached(dayFormats, zone, () => new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }));
  const clock = cached(clockFormats, zone, () => new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: 'numeric', minute: '2-digit', hourCycle: 'h23' }));
  return [day.format(d).replace(',', ''), clock.format(d).replace(/^0(\d)/, '$1')];
}

/** "New York time (America/New_York)": the city people say, and the zone a program can use. */
function zoneLabel(zone: string): string {
  const city = zone.split('/').pop()!.replace(/_/g, ' ');
  return zone.includes('/') ? `${city} time (${zone})` : zone;
}

/**
 * Availability as a model reads it: grouped by day, then by start time, each resource combination
 * named once per time with its slot id beside it, so every slot in `structuredContent` can be
 * booked from the text alone. It says the zone once, the range it covers and how to get the rest.
 */
/**
 * The text of the last page of each cached slot list, kept while that page comes back. The
 * availability cache hands out the same frozen slot objects for as long as its entry holds, so a
 * page made of the very same objects (compared one by one), with the same cursor and zone, reads
 * the same: the text is reused instead of formatting every start again (about half of what a
 * repeated availability call cost on stdio). Keyed weakly by the page's first slot, so a lapsed
 * cache entry takes its text with it; uncached (unfrozen) answers are never kept.
 */
const pageTexts = new WeakMap<object, { slots: readonly object[]; zone: string; more: unknown; cursor: unknown; text: string }>();

function slotsText(data: Record<string, any>, zone: string): string {
  const slots = data.slots as Array<Record<string, any>>;
  if (slots.length === 0 || !Object.isFrozen(slots[0])) return formatSlots(data, zone);
  const more = data.pagination?.has_more;
  const cursor = data.pagination?.cursor;
  const kept = pageTexts.get(slots[0]);
  if (kept && kept.zone === zone && kept.more === more && kept.cursor === cursor && kept.slots.length === slots.length && kept.slots.every((s, i) => s === slots[i])) {
    return kept.text;
  }
  const text = formatSlots(data, zone);
  pageTexts.set(slots[0], { slots: slots.slice(), zone, more, cursor, text });
  return text;
}

function formatSlots(data: Record<string, any>, zone: string): string {
  const slots = data.slots as Array<Record<string, any>>;
  if (slots.length === 0) return `No open slots in that range (times would be in ${zoneLabel(zone)}).`;
  const days: string[] = [];
  let currentDay = '';
  let currentTime = '';
  let line: string[] = [];
  let times: string[] = [];
  const flushTime = () => {
    if (times.length) line.push(`${currentTime} ${times.join(', ')}`);
    times = [];
  };
  const flushDay = () => {
    flushTime();
    if (line.length) days.push(`${currentDay}: ${line.join(' · ')}`);
    line = [];
  };
  for (const s of slots) {
    const ms = Date.parse(s.start);
    const [day, clock] = Number.isNaN(ms) ? ['Unknown day', String(s.start)] : dayAndClock(ms, zone);
    if (day !== currentDay) {
      flushDay();
      currentDay = day;
      currentTime = '';
    }
    if (clock !== currentTime) {
      flushTime();
      currentTime = clock;
    }
    const who = s.resources?.length ? s.resources.map((r: any) => r.name).join(' + ') : '';
    const spots = s.capacity ? ` (${s.capacity.remaining} left)` : '';
    times.push(`${who}${spots}${who || spots ? ' ' : ''}${s.id}`);
  }
  flushDay();
  const first = dayAndClock(Date.parse(slots[0].start), zone).join(' ');
  const last = dayAndClock(Date.parse(slots[slots.length - 1].start), zone).join(' ');
  const more = data.pagination?.has_more
    ? ` More slots follow ${last}: call usp_availability_query again with the same arguments and cursor "${data.pagination.cursor}" (or a later start_date).`
    : ' That is every open slot in the range asked.';
  return (
    `${slots.length} open slot${slots.length === 1 ? '' : 's'} from ${first} to ${last}, times in ${zoneLabel(zone)}; each name is followed by the slot_id to hold or book.${more}\n` +
    days.join('\n')
  );
}

function bookingText(b: Record<string, any>, ctx: SummaryContext): string {
  const lines = [`Booking ${b.id}: ${b.service_name}, ${when(b.slot?.start, ctx.zone)}; status ${b.status}.`];
  if (b.resources?.length) lines.push(`With ${b.resources.map((r: any) => r.name).join(', ')}.`);
  if (b.location?.name) lines.push(`At ${b.location.name}.`);
  const pay = (b.actions ?? []).find((a: any) => a.status === 'pending' && a.type === 'payment');
  if (b.status === 'requires_action' && pay) {
    lines.push(
      `NOT confirmed and NOT paid yet: the person must pay ${money(pay.payment_context?.amount_due, pay.payment_context?.currency)} at ${pay.continue_url} before ${when(pay.expires_at, ctx.zone)}, or the booking is canceled. Give them that link exactly.`,
    );
  } else if (b.status === 'pending') {
    lines.push(`Waiting for the business to confirm${b.expires_at ? ` (by ${when(b.expires_at, ctx.zone)})` : ''}; it is not confirmed yet.`);
  } else if (b.status === 'confirmed') {
    if (b.payment?.timing === 'at_service' && b.payment?.amount) lines.push(`Pay ${money(b.payment.amount, b.payment.currency)} at the appointment.`);
  } else if (b.status === 'canceled' && b.cancellation) {
    lines.push(`Canceled by ${b.cancellation.canceled_by}; fee ${money(b.cancellation.fee ?? 0, b.payment?.currency ?? ctx.currency)}, refund ${money(b.cancellation.refund_amount ?? 0, b.payment?.currency ?? ctx.currency)}.`);
  }
  if (b.revision) lines.push(`Revision ${b.revision}.`);
  return lines.join(' ');
}

export function summarize(tool: string, data: Record<string, any>, messages: Message[], ctx: SummaryContext): string {
  const parts: string[] = [];
  for (const m of messages) parts.push(`${m.type === 'error' ? 'Could not complete' : m.type}: ${m.code ? `[${m.code}] ` : ''}${m.content}`);
  if (data.booking) parts.push(bookingText(data.booking, ctx));
  if (data.hold) {
    const h = data.hold;
    parts.push(
      h.status === 'active'
        ? `Slot held (hold ${h.id}) until ${when(h.expires_at, ctx.zone)}. Nothing is booked yet: book with usp_bookings_create before then.`
        : `Hold ${h.id} is ${h.status}.`,
    );
  }
  if (data.entry) {
    const e = data.entry;
    let t = `Waitlist entry ${e.id}: ${e.status}, position ${e.position}.`;
    if (e.status === 'offered' && e.offered_slot) t += ` A place is offered at ${when(e.offered_slot.start, ctx.zone)}; accept with usp_waitlist_accept before ${when(e.offer_expires_at, ctx.zone)}.`;
    parts.push(t);
  }
  if (Array.isArray(data.slots)) parts.push(slotsText(data, ctx.zone));
  if (Array.isArray(data.services)) {
    const services = data.services as Array<Record<string, any>>;
    parts.push(
      services.length === 0
        ? 'No matching services.'
        : services.map((s) => `${s.name} [${s.id}]: ${s.pricing?.model === 'free' ? 'free' : money(s.pricing?.amount, s.pricing?.currency)}${s.duration?.fixed ? `, ${s.duration.fixed.replace('PT', '').toLowerCase()}` : ''}`).join('; ') + '.',
    );
  }
  if (data.service) parts.push(`${data.service.name} [${data.service.id}]: ${data.service.pricing?.model === 'free' ? 'free' : money(data.service.pricing?.amount, data.service.pricing?.currency)}.`);
  if (Array.isArray(data.entries)) parts.push(`${data.entries.length} waitlist entr${data.entries.length === 1 ? 'y' : 'ies'}.`);
  if (Array.isArray(data.items)) parts.push(`${data.items.length} catalog change(s).`);
  if (data.subscription) parts.push(`Feed subscription ${data.subscription.id} is ${data.subscription.status}.`);
  if (parts.length === 0) parts.push(`${tool} done.`);
  return parts.join('\n');
}
