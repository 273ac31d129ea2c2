/**
 * The `content` text of a tool result: what a model can relay to a person as is. Times in the
 * business's time zone with the zone named, prices with their currency, and the next step.
 */
import type { Message } from '../../operations/index.js';
import { dayAndClock, money, when, zoneLabel } from './format.js';
import { bookingText, bookingsText, entryText, type BookingTextContext } from './booking-text.js';
import { paymentWindowWords, serviceWords } from './terms-text.js';
import { serviceCard } from './service-card.js';
import { contactWords, laterAccess, nextStep } from './next-steps.js';
import { decodeSlotId, memoPerObject, serviceTerms, type Business } from '../../operations/index.js';

/** The zone and currency texts are written in; with the business and its clock, terms and places are said too. */
export type SummaryContext = BookingTextContext & {
  /** Whether the caller is on the business's own machine (stdio, or HTTP from a loopback address). */
  local?: boolean;
  /** The party size the call asked for (availability), so a slot too small for it says so rather than "full". */
  partySize?: number;
};

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
const pageTexts = new WeakMap<
  object,
  { slots: readonly object[]; zone: string; party: number; more: unknown; cursor: unknown; text: string }
>();

function slotsText(data: Record<string, any>, zone: string, party: number): string {
  const slots = data.slots as Array<Record<string, any>>;
  if (slots.length === 0 || !Object.isFrozen(slots[0])) return formatSlots(data, zone, party);
  const more = data.pagination?.has_more;
  const cursor = data.pagination?.cursor;
  const kept = pageTexts.get(slots[0]);
  if (
    kept &&
    kept.zone === zone &&
    kept.party === party &&
    kept.more === more &&
    kept.cursor === cursor &&
    kept.slots.length === slots.length &&
    kept.slots.every((s, i) => s === slots[i])
  ) {
    return kept.text;
  }
  const text = formatSlots(data, zone, party);
  pageTexts.set(slots[0], { slots: slots.slice(), zone, party, more, cursor, text });
  return text;
}

function formatSlots(data: Record<string, any>, zone: string, party: number): string {
  const slots = data.slots as Array<Record<string, any>>;
  if (slots.length === 0) return `No open slots in that range (times would be in ${zoneLabel(zone)}).`;
  const days: string[] = [];
  let currentDay = '';
  let currentTime = '';
  let line: string[] = [];
  let times: string[] = [];
  let fullCount = 0;
  const resourceIds = new Map<string, string>();
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
    const full = s.state === 'waitlist' || (s.capacity && s.capacity.remaining === 0);
    if (full) fullCount++;
    for (const r of s.resources ?? []) if (!resourceIds.has(r.name)) resourceIds.set(r.name, r.id);
    const left = s.capacity?.remaining ?? 0;
    const tooSmall =
      full && left > 0
        ? ` (${left} place${left === 1 ? '' : 's'} left, not enough for ${party > 1 ? party : 'this party'}: waitlist only)`
        : '';
    const spots = tooSmall || (full ? ' (FULL: waitlist only)' : s.capacity ? ` (${left} left)` : '');
    times.push(`${who}${spots}${who || spots ? ' ' : ''}${s.id}`);
  }
  flushDay();
  const first = dayAndClock(Date.parse(slots[0].start), zone).join(' ');
  const last = dayAndClock(Date.parse(slots[slots.length - 1].start), zone).join(' ');
  const more = data.pagination?.has_more
    ? ` More slots follow ${last}: call usp_availability_query again with the same arguments and cursor "${data.pagination.cursor}" (or a later start_date).`
    : ' That is every slot in the range asked.';
  const open = slots.length - fullCount;
  const counted = fullCount
    ? `${slots.length} slot${slots.length === 1 ? '' : 's'} (${open} open${party > 1 ? ` for ${party}` : ''}, ${fullCount} ${party > 1 ? 'too small or full' : 'full'}: join its waitlist with usp_waitlist_join${party > 1 ? `, party_size ${party}` : ''})`
    : `${slots.length} open slot${slots.length === 1 ? '' : 's'}`;
  const ids = resourceIds.size
    ? `\nResource ids (to filter, pass resource_id): ${[...resourceIds].map(([name, rid]) => `${name} ${rid}`).join(', ')}.`
    : '';
  return (
    `${counted} from ${first} to ${last}, times in ${zoneLabel(zone)}; each name is followed by the slot_id to hold or book.${more}${ids}\n` +
    days.join('\n')
  );
}

export function summarize(tool: string, data: Record<string, any>, messages: Message[], given: SummaryContext): string {
  const ctx: SummaryContext = { ...given, linksUnreachable: linksUnreachable(given) };
  const parts: string[] = [];
  for (const m of messages)
    parts.push(
      `${m.type === 'error' ? 'Could not complete' : m.type}: ${m.code ? `[${m.code}] ` : ''}${m.content}${m.type === 'error' ? nextStep(m.code, ctx.business) : ''}`,
    );
  if (data.booking) {
    parts.push(bookingText(data.booking, ctx));
    // The credential is the platform's to keep (structuredContent); the text never names it (DECISIONS).
    if (data.booking_scoped_credential) parts.push(laterAccess('booking', data.booking.id));
  }
  if (data.hold) {
    const h = data.hold;
    parts.push(
      h.status === 'active'
        ? `Slot held (hold ${h.id})${heldWhat(h, ctx)} until ${when(h.expires_at, ctx.zone)}. Nothing is booked yet: book with usp_bookings_create before then.${heldPayment(h, ctx)}`
        : `Hold ${h.id} is ${h.status}.`,
    );
  }
  if (data.entry) parts.push(entryText(data.entry, ctx, data.booking ? undefined : data.booking_scoped_credential));
  if (data.quote)
    parts.push(
      `${data.quote.allowed ? '' : 'Not possible: '}${data.quote.summary} (booking ${data.quote.booking_id}; nothing was changed.)`,
    );
  if (Array.isArray(data.slots)) parts.push(slotsText(data, ctx.zone, ctx.partySize ?? 1));
  if (Array.isArray(data.bookings)) parts.push(bookingsText(data.bookings, data.pagination, ctx));
  if (Array.isArray(data.services)) parts.push(servicesText(data.services, ctx));
  if (data.service) parts.push(serviceText(data.service, ctx, true));
  if (Array.isArray(data.entries))
    parts.push(`${data.entries.length} waitlist entr${data.entries.length === 1 ? 'y' : 'ies'}.`);
  if (Array.isArray(data.items)) parts.push(`${data.items.length} catalog change(s).`);
  if (data.subscription) parts.push(`Feed subscription ${data.subscription.id} is ${data.subscription.status}.`);
  if (parts.length === 0) parts.push(`${tool} done.`);
  const links = localLinksWarning(parts, ctx);
  if (links) parts.push(links);
  return parts.join('\n');
}

/** ": Haircut & Style, Tue, Dec 8, 2026, 3:00 PM EST (America/New_York), 2 spots," — what the hold keeps, from its slot id. */
function heldWhat(h: Record<string, any>, ctx: SummaryContext): string {
  const start = decodeSlotId(h.slot_id)?.startMs;
  const name = ctx.business?.def.services.find((s) => s.id === h.service_id)?.name ?? h.service_id;
  const parts = [
    name,
    start === undefined ? null : when(new Date(start).toISOString(), ctx.zone),
    h.spots > 1 ? `${h.spots} spots` : null,
  ].filter(Boolean);
  return parts.length > 0 ? `: ${parts.join(', ')},` : '';
}

/** A hold of a service paid when booking says the payment window before the booking is made. */
function heldPayment(h: Record<string, any>, ctx: SummaryContext): string {
  const t = ctx.business ? serviceTerms(ctx.business, String(h.service_id)) : null;
  if (!t || (t.payment.timing !== 'at_booking' && t.payment.timing !== 'deposit_required')) return '';
  // The rule, not an instant: the hold's result carries no payment deadline, and a text states only what its result carries.
  return ` Once booked, it must be paid by a payment link ${paymentWindowWords(t.payment.window!, { full: true })}; unpaid by then, the booking is canceled and its time freed. Book only when the person can pay within that window.`;
}

/** One service: its terms from the business definition when known, else what the published service says. */
function serviceText(s: Record<string, any>, ctx: SummaryContext, business: boolean): string {
  const biz = ctx.business;
  const id = String(s.id);
  // From the snapshot's terms alone: written once per snapshot, service and form.
  const text = biz && (business ? serviceCardText(biz, id) : serviceLineText(biz, id));
  return (
    text ||
    `${s.name} [${s.id}]: ${s.pricing?.model === 'free' ? 'free' : money(s.pricing?.amount, s.pricing?.currency)}.`
  );
}

/**
 * A service's words and card, by snapshot (null: no terms): every usp_services_get and
 * usp_services_list call wrote them again from the same terms. A new definition is a new snapshot.
 * One service asked by id gets its full card; a list keeps one line each.
 */
const serviceCardText = memoPerObject((biz: Business, id: string): string | null => {
  const terms = serviceTerms(biz, id);
  return terms && `${serviceWords(id, terms, { business: true })} ${serviceCard(biz, id, terms)}`;
});
const serviceLineText = memoPerObject((biz: Business, id: string): string | null => {
  const terms = serviceTerms(biz, id);
  return terms && serviceWords(id, terms, { business: false });
});

function servicesText(services: Array<Record<string, any>>, ctx: SummaryContext): string {
  if (services.length === 0) return 'No matching services.';
  const head = `${services.length} service${services.length === 1 ? '' : 's'}${ctx.business ? ` at ${ctx.business.def.business.name}` : ''}:`;
  return [head, ...services.map((s) => `- ${serviceText(s, ctx, false)}`)].join('\n');
}

/**
 * Links built on a public origin nobody configured name the address the server listens on, which
 * opens only on the business's own machine: said when the caller is elsewhere, so nobody is sent a
 * link they cannot open (the start-up log tells the business to set --public-url).
 */
function localLinksWarning(parts: string[], ctx: SummaryContext): string | null {
  const biz = ctx.business;
  if (!biz || !ctx.linksUnreachable) return null;
  if (!parts.some((p) => p.includes(biz.publicUrl))) return null;
  return `Links above that start with ${biz.publicUrl} open only on the business's own machine: it has no public address configured (its --public-url). Do not send them to the person as they are; tell them to ask ${contactWords(biz)} how to pay or see the booking instead.`;
}

function linksUnreachable(ctx: SummaryContext): boolean {
  return Boolean(ctx.business && !ctx.business.publicUrlConfigured && ctx.local === false);
}
